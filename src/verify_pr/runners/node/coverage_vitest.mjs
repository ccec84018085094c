// verify-pr's vitest coverage provider (docs/coverage.md): loaded by vitest itself through
// --coverage.provider=custom, in its main process and in every test worker. The command line
// writes it to /tmp/node_modules/ (a name vite-node imports natively, never through vite) and
// puts a first line before it: const VPR = {"files": [...], "out": "/work/...", "loaded": ...};
// getProvider leaves the file VPR.loaded: without it (vitest could not load this module, e.g.
// a config that inlines every dependency through vite, which serves nothing from /tmp) the
// command runs the suite again without coverage, so coverage never changes the run.
// Worker side: V8's own block coverage through node:inspector (no package), filtered to the
// changed files. Main side: each changed file is parsed with the image's @babel/parser (which
// lines are statements, which are inside functions: the executable lines come from a parser),
// and each statement's start is mapped through vite-node's inline source map to the code that
// ran; the innermost V8 range there says whether it ran. The JSON (version 1 of ours) goes to
// VPR.out. Comment lines and indentation are stripped for the command line: every statement
// ends with a semicolon, and no single quote may appear.
import { Session } from "node:inspector";
const targets = new Set(VPR.files.map((f) => "/work/" + f));
const fileOf = (url) => (url.startsWith("file://") ? url.slice(7) : url);
let session = null;
const post = (method, params) =>
  new Promise((ok, ko) => {
    session.post(method, params || {}, (error, result) => (error ? ko(error) : ok(result)));
  });
const FUNCTIONS = new Set([
  "FunctionDeclaration",
  "FunctionExpression",
  "ArrowFunctionExpression",
  "ObjectMethod",
  "ClassMethod",
  "ClassPrivateMethod",
]);
const TYPE_ONLY = /^(TS(?!EnumDeclaration|ModuleDeclaration|ExportAssignment|ImportEqualsDeclaration)|DeclareFunction$|InterfaceDeclaration$|TypeAlias$)/;
const BODY = {
  IfStatement: "consequent",
  ForStatement: "body",
  ForInStatement: "body",
  ForOfStatement: "body",
  WhileStatement: "body",
  DoWhileStatement: "body",
  WithStatement: "body",
  LabeledStatement: "body",
  TryStatement: "block",
  FunctionDeclaration: "body",
  ClassDeclaration: "body",
  ClassMethod: "body",
  ClassPrivateMethod: "body",
  SwitchStatement: "discriminant",
  TSModuleDeclaration: "body",
  TSEnumDeclaration: "id",
};
const HEADS = new Set(["FunctionDeclaration", "ClassDeclaration"]);
// an export with a declaration is that declaration; one without (a list, a re-export, a
// default expression) is a statement of its own, run on import
const exportOnly = (node) =>
  node.type === "ExportAllDeclaration" ||
  (node.type === "ExportNamedDeclaration" && !node.declaration) ||
  (node.type === "ExportDefaultDeclaration" && !/Declaration$/.test(node.declaration.type));
const isStatement = (node) =>
  /(Statement|Declaration)$/.test(node.type) &&
  node.type !== "BlockStatement" &&
  node.type !== "EmptyStatement" &&
  (!node.type.startsWith("Export") || exportOnly(node)) &&
  node.exportKind !== "type" &&
  !TYPE_ONLY.test(node.type) &&
  node.declare !== true &&
  node.importKind !== "type";
const children = (node) => {
  const out = [];
  for (const key of Object.keys(node)) {
    if (key === "loc" || key === "leadingComments" || key === "trailingComments") {
      continue;
    }
    const value = node[key];
    for (const child of Array.isArray(value) ? value : [value]) {
      if (child && typeof child === "object" && typeof child.type === "string") {
        out.push(child);
      }
    }
  }
  return out;
};
function statements(ast) {
  const found = [];
  const visit = (node, inFunction, parent) => {
    let here = parent;
    const type = node.type;
    if (type.startsWith("TS") && TYPE_ONLY.test(type)) {
      return;
    }
    if (type === "ExportNamedDeclaration" && node.exportKind === "type") {
      return;
    }
    const member = type === "ClassMethod" || type === "ClassPrivateMethod";
    const field = type === "ClassProperty" || type === "ClassPrivateProperty";
    if ((isStatement(node) || member || (field && node.value)) && !node.abstract) {
      const first = node.loc.start.line;
      let last = node.loc.end.line;
      const key = BODY[type];
      const body = key ? node[key] : null;
      if (member || (body && type !== "SwitchStatement")) {
        last = body.type === "BlockStatement" || body.type === "ClassBody" || member
          ? body.loc.start.line
          : Math.max(first, body.loc.start.line - 1);
      } else if (type === "SwitchStatement") {
        last = node.discriminant.loc.end.line;
      }
      const probe = field ? node.value.loc.start : node.loc.start;
      here = {
        first,
        last,
        probe,
        end: node.loc.end,
        inFunction: inFunction || (field && !node.static),
        head: HEADS.has(type),
        inherit: member ? parent : null,
        whole: !key && !field,
        holes: [],
      };
      found.push(here);
    }
    if (FUNCTIONS.has(type)) {
      if (here) {
        const b = node.body.loc;
        here.holes.push([b.start.line + (node.body.type === "BlockStatement" ? 1 : 0), b.end.line]);
      }
      if (node.body.type !== "BlockStatement") {
        const b = node.body.loc;
        found.push({
          first: b.start.line,
          last: b.end.line,
          probe: b.start,
          end: b.end,
          inFunction: true,
          head: false,
          inherit: null,
          whole: true,
          holes: [],
        });
      }
      for (const child of children(node)) {
        visit(child, true, here);
      }
      return;
    }
    for (const child of children(node)) {
      visit(child, inFunction, here);
    }
  };
  visit(ast.program, false, null);
  for (const s of found) {
    s.lines = [];
    for (let n = s.first; n <= s.last; n++) {
      if (n === s.first || !s.holes.some(([a, b]) => a <= n && n <= b)) {
        s.lines.push(n);
      }
    }
  }
  return found;
}
function sourceMapOf(code) {
  const marker = "//# sourceMappingURL=data:application/json;charset=utf-8;base64,";
  const at = code.lastIndexOf(marker);
  if (at < 0) {
    return null;
  }
  const text = code.slice(at + marker.length).trim();
  return JSON.parse(Buffer.from(text, "base64").toString("utf-8"));
}
async function shape(file) {
  const { parse } = await import("/node_modules/@babel/parser/lib/index.js");
  const { readFileSync } = await import("node:fs");
  const plugins = [];
  if (/\.[cm]?tsx?$/.test(file)) {
    plugins.push("typescript");
  }
  if (/\.(jsx|tsx|js)$/.test(file)) {
    plugins.push("jsx");
  }
  const source = readFileSync(file, "utf-8");
  return statements(parse(source, { sourceType: "unambiguous", plugins, errorRecovery: false }));
}
async function measure(found, code, startOffset, functions) {
  const { decode } = await import("/node_modules/@jridgewell/sourcemap-codec/dist/sourcemap-codec.mjs");
  const map = sourceMapOf(code);
  if (!map || map.sources.length !== 1) {
    return null;
  }
  const starts = [0];
  for (let i = 0; i < code.length; i++) {
    if (code.charCodeAt(i) === 10) {
      starts.push(i + 1);
    }
  }
  const ranges = functions.flatMap((f) => f.ranges);
  const countAt = (offset, strict) => {
    let best = null;
    for (const r of ranges) {
      const inside = (strict ? r.startOffset < offset : r.startOffset <= offset) && offset < r.endOffset;
      if (inside && (best === null || r.endOffset - r.startOffset < best.endOffset - best.startOffset)) {
        best = r;
      }
    }
    return best === null ? 0 : best.count;
  };
  const segments = [];
  decode(map.mappings).forEach((line, genLine) => {
    for (const seg of line) {
      if (seg.length >= 4) {
        segments.push([seg[2] + 1, seg[3], startOffset + starts[genLine] + seg[0]]);
      }
    }
  });
  segments.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const firstAtOrAfter = (pos, end) => {
    let lo = 0;
    let hi = segments.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const s = segments[mid];
      if (s[0] < pos.line || (s[0] === pos.line && s[1] < pos.column)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    const s = segments[lo];
    if (!s || s[0] > end.line || (s[0] === end.line && s[1] >= end.column)) {
      return null;
    }
    return s;
  };
  const ran = new Map();
  for (const s of found) {
    if (!s.inherit) {
      const seg = firstAtOrAfter(s.probe, s.end);
      ran.set(s, seg === null ? null : countAt(seg[2], s.head) > 0);
    }
  }
  for (const s of found) {
    if (s.inherit) {
      ran.set(s, ran.get(s.inherit) ?? null);
    }
  }
  return ran;
}
function lineSets(found, ran) {
  const executable = new Set();
  const inside = new Set();
  const run = new Set();
  for (const s of found) {
    const state = ran === null ? false : ran.get(s);
    if (state === null || state === undefined) {
      continue;
    }
    for (const n of s.lines) {
      executable.add(n);
      if (s.inFunction) {
        inside.add(n);
      }
      if (state) {
        run.add(n);
      }
    }
  }
  return { executable, inside, run };
}
const sorted = (set) => [...set].sort((a, b) => a - b);
class VerifyPrCoverage {
  name = "verify-pr";
  runs = [];
  initialize(ctx) {
    this.ctx = ctx;
  }
  resolveOptions() {
    return this.ctx.config.coverage;
  }
  clean() {}
  onAfterSuiteRun(meta) {
    if (meta && meta.coverage && Array.isArray(meta.coverage.result)) {
      this.runs.push(meta);
    }
  }
  async generateCoverage() {
    // never a throw: vitest would end with an error, and coverage must not change the run
    // (VPR_DEBUG, for a maintainer running it by hand, prints why nothing was written)
    try {
      await this.write();
    } catch (error) {
      if (process.env.VPR_DEBUG) {
        console.error(error);
      }
    }
    return {};
  }
  async write() {
    const { writeFileSync } = await import("node:fs");
    const doc = { version: 1, tracer: "v8-block-ranges", runtime: "vitest " + this.ctx.version, files: {} };
    for (const file of targets) {
      const rel = file.slice(6);
      let found;
      try {
        found = await shape(file);
      } catch (error) {
        doc.files[rel] = { executable: null, function: null, run: [] };
        continue;
      }
      let loaded = false;
      let seen = false;
      let merged = null;
      for (const meta of this.runs) {
        const project = this.ctx.projects.find((p) => p.name === (meta.projectName || "")) || this.ctx.getRootProject();
        const caches = project.vitenode.fetchCaches[meta.transformMode];
        const cached = caches && caches.get(file);
        const code = cached && cached.result && cached.result.code;
        for (const script of meta.coverage.result) {
          if (script.url !== file) {
            continue;
          }
          seen = true;
          if (typeof code !== "string" || typeof script.startOffset !== "number") {
            continue;
          }
          const ran = await measure(found, code, script.startOffset, script.functions);
          if (ran === null) {
            continue;
          }
          loaded = true;
          const got = lineSets(found, ran);
          if (merged === null) {
            merged = got;
          } else {
            got.run.forEach((n) => merged.run.add(n));
          }
        }
      }
      if (seen && !loaded) {
        continue;
      }
      if (!loaded) {
        merged = lineSets(found, null);
      }
      doc.files[rel] = {
        executable: sorted(merged.executable),
        function: sorted(merged.inside),
        run: sorted(merged.run).filter((n) => merged.executable.has(n)),
      };
    }
    writeFileSync(VPR.out, JSON.stringify(doc));
  }
  reportCoverage() {}
}
export default {
  async getProvider() {
    try {
      const { writeFileSync } = await import("node:fs");
      writeFileSync(VPR.loaded, "");
    } catch {}
    return new VerifyPrCoverage();
  },
  async startCoverage() {
    if (session !== null) {
      return;
    }
    try {
      session = new Session();
      session.connect();
      await post("Profiler.enable");
      await post("Profiler.startPreciseCoverage", { callCount: false, detailed: true });
    } catch {
      session = null;
    }
  },
  async takeCoverage(options) {
    if (session === null) {
      return { result: [] };
    }
    let taken;
    try {
      taken = await post("Profiler.takePreciseCoverage");
    } catch {
      return { result: [] };
    }
    const info = options && options.moduleExecutionInfo;
    const result = [];
    for (const script of taken.result) {
      const file = fileOf(script.url);
      if (targets.has(file)) {
        const at = info && info.get(file);
        result.push({ url: file, functions: script.functions, startOffset: at ? at.startOffset : undefined });
      }
    }
    return { result };
  },
};
