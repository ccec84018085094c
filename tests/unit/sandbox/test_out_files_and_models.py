"""OUT is written atomically and only with our names; result.json is strict; schema in sync."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from verify_pr.errors import InputRefused
from verify_pr.models import schemas
from verify_pr.models.sandbox import RunStatus, SandboxResult
from verify_pr.sandbox.image_check import image_path_env
from verify_pr.sandbox.out_files import write_out
from verify_pr.sandbox.spool import ReportSpool

ROOT = Path(__file__).resolve().parents[3]


def result(**over: object) -> SandboxResult:
    data: dict[str, object] = {
        "status": RunStatus.COMPLETED,
        "exit_code": 0,
        "output_truncated": False,
        "detail": "ok",
        "image": "img",
        "timeout_s": 5,
    }
    data.update(over)
    return SandboxResult.model_validate(data)


def spool(data: bytes) -> ReportSpool:
    report = ReportSpool()
    report.write(data)
    return report


def test_write_out_files_and_no_temp_left(tmp_path: Path) -> None:
    out = tmp_path / "o"
    write_out(out, result(), b"\x00\xffbytes", spool(b"<r/>"))
    assert sorted(p.name for p in out.iterdir()) == ["output.txt", "report.txt", "result.json"]
    assert (out / "output.txt").read_bytes() == b"\x00\xffbytes"
    assert (out / "report.txt").read_bytes() == b"<r/>"
    assert json.loads((out / "result.json").read_text())["status"] == "COMPLETED"


def test_stale_report_removed_when_none_returned(tmp_path: Path) -> None:
    out = tmp_path / "o"
    write_out(out, result(), b"", spool(b"old"))
    write_out(out, result(), b"", None)
    assert not (out / "report.txt").exists()


def test_planted_symlink_is_replaced_not_followed(tmp_path: Path) -> None:
    out = tmp_path / "o"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (out / "output.txt").symlink_to(victim)
    write_out(out, result(), b"new", None)
    assert victim.read_text() == "keep"
    assert not (out / "output.txt").is_symlink()


def test_result_model_is_strict() -> None:
    with pytest.raises(ValidationError):
        SandboxResult.model_validate({**result().model_dump(), "extra": 1})
    with pytest.raises(ValidationError):
        SandboxResult.model_validate({**result().model_dump(), "exit_code": "0"})
    with pytest.raises(ValidationError):
        result(exit_code=256)
    with pytest.raises(ValidationError):
        result(detail="x" * 5000)


def test_every_status_round_trips() -> None:
    for status in RunStatus:
        again = SandboxResult.model_validate_json(result(status=status).model_dump_json())
        assert again.status is status


def test_exported_schemas_are_in_sync() -> None:
    for name, model in schemas.SCHEMAS.items():
        committed = (ROOT / "schema" / name).read_text()
        assert committed == schemas.render(model), "run: python -m verify_pr.models.schemas"


def test_image_volume_refused() -> None:
    with pytest.raises(InputRefused, match="VOLUME"):
        image_path_env({"Volumes": {"/data": {}}})


@pytest.mark.parametrize("env", ["LD_PRELOAD=/x.so", "BASH_ENV=/x", "ENV=/x", "GCONV_PATH=/x"])
def test_image_risky_env_refused(env: str) -> None:
    with pytest.raises(InputRefused, match="ENV"):
        image_path_env({"Env": [env]})


def test_image_path_taken_and_harmless_env_allowed() -> None:
    env = ["PATH=/opt/bin:/usr/bin", "LANG=C.UTF-8", "PYTHON_VERSION=3.12", "LC_ALL=C"]
    assert image_path_env({"Env": env}) == "/opt/bin:/usr/bin"
    with pytest.raises(InputRefused):
        image_path_env({"Env": ["PATH=/bin;rm"]})
