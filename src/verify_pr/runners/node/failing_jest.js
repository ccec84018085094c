// verify-pr's jest test runner: jest-circus's own, plus each test's `failing` flag as jest-circus
// holds it (its state), written on the test's assertion result as verifyPrFailing, and whether
// it failed outside its own body (a hook), as verifyPrOutside. jest writes
// a test.failing whose body failed as a plain pass and drops the flag (jestAdapterInit), so
// the report alone cannot tell it from a pass; reading the state catches a marker however the
// test file spells it (destructured, aliased, across lines). Comment lines and indentation are
// stripped and the rest joined into one line for the command line: every statement ends
// with a semicolon, and no single quote may appear.
"use strict";
const circus = require("jest-circus/runner");
// the tests whose own body failed (test_fn_failure), and the tests and blocks a hook failed
// for (hook_failure: a beforeEach or afterEach names its test, a beforeAll or afterAll its
// block): a failed test a hook failed for, whose body did not fail, failed outside its body
const bodyFailed = new WeakSet();
const hookFailed = new WeakSet();
// the tests in jest-circus's own result order (makeTestResults: depth first, in order)
const walk = (block, out, inherited) => {
  const blockFailed = inherited || hookFailed.has(block);
  for (const child of block.children) {
    if (child.type === "describeBlock") walk(child, out, blockFailed);
    else if (child.type === "test") {
      const hooked = blockFailed || hookFailed.has(child);
      const outside = child.errors.length > 0 && hooked && !bodyFailed.has(child);
      out.push([child.name, child.failing === true, outside]);
    }
  }
  return out;
};
module.exports = async (globalConfig, config, environment, runtime, testPath, send) => {
  let flags = null;
  const own = environment.handleTestEvent;
  // jest-circus calls the environment handleTestEvent on every event, with its state
  const hook = function (event, state) {
    if (event.name === "test_fn_failure") bodyFailed.add(event.test);
    if (event.name === "hook_failure") hookFailed.add(event.test || event.describeBlock);
    if (event.name === "run_finish") flags = walk(state.rootDescribeBlock, [], false);
    return typeof own === "function" ? own.call(environment, event, state) : undefined;
  };
  try {
    environment.handleTestEvent = hook;
  } catch (error) {
    // an environment that refuses the hook gets no flags: verify-pr trusts none of its passes
  }
  const result = await circus(globalConfig, config, environment, runtime, testPath, send);
  const rows = result && result.testResults;
  // every row, or none: a row without the flag makes verify-pr distrust the whole report
  if (
    environment.handleTestEvent === hook &&
    Array.isArray(flags) &&
    Array.isArray(rows) &&
    rows.length === flags.length &&
    rows.every((row, i) => row.title === flags[i][0])
  ) {
    rows.forEach((row, i) => {
      row.verifyPrFailing = flags[i][1];
      row.verifyPrOutside = flags[i][2];
    });
  }
  return result;
};
