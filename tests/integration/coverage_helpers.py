"""The fixture texts the patch coverage tests share (compare's and run's): a Python helper no
test calls, and a jest project whose fix adds one."""

HELPER = "\n\ndef unused_helper(x):\n    y = x * 2\n    return y\n"
JS_BUGGY = "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n"
JS_FIXED = (
    "function add(a, b) {\n  return a + b;\n}\n\n"
    "function unusedHelper(x) {\n  const y = x * 2;\n  return y;\n}\n\n"
    "module.exports = { add, unusedHelper };\n"
)
JS_TEST = (
    'const { add } = require("./calc");\n\ntest("add", () => {\n  expect(add(2, 3)).toBe(5);\n});\n'
)
JS_PKG = '{"name":"c","private":true,"scripts":{"test":"jest"}}\n'
