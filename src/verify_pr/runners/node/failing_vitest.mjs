// verify-pr's vitest JSON reporter: vitest's own, plus each test's `fails` flag (test.fails,
// kept on the task) written on its assertion result as verifyPrFailing, and whether a hook of
// the test did not pass (it failed outside its own body) as verifyPrOutside. vitest writes a
// test.fails whose body failed as a plain pass, so the report alone cannot tell it from a
// pass; the task's flag catches a marker however the test file spells it. It runs in vitest's
// main process (the tests run in workers). Comment lines and indentation are stripped and the
// rest joined into one line for the command line: every statement ends with a semicolon,
// and no single quote may appear.
import { JsonReporter } from "vitest/reporters";
// a file's tests in the order the JSON reporter lists them (getTests: depth first, in order)
const testsOf = (task) => (task.type === "test" ? [task] : (task.tasks || []).flatMap(testsOf));
// a hook of the test that did not pass (vitest leaves a beforeEach that threw as "run"): the
// test failed outside its own body
const outside = (task) => Object.values((task.result && task.result.hooks) || {}).some((s) => s !== "pass");
export default class VerifyPrJsonReporter extends JsonReporter {
  async logTasks(files, coverageMap) {
    this.verifyPrFiles = files;
    return super.logTasks(files, coverageMap);
  }
  async writeReport(text) {
    const files = this.verifyPrFiles;
    const report = JSON.parse(text);
    const suites = report.testResults;
    if (Array.isArray(files) && Array.isArray(suites) && files.length === suites.length) {
      suites.forEach((suite, i) => {
        const tests = testsOf(files[i]);
        const rows = suite.assertionResults;
        // every row of a file, or none: a row without the flag makes verify-pr distrust the report
        if (
          suite.name === files[i].filepath &&
          Array.isArray(rows) &&
          rows.length === tests.length &&
          rows.every((row, j) => row.title === tests[j].name)
        ) {
          rows.forEach((row, j) => {
            row.verifyPrFailing = tests[j].fails === true;
            row.verifyPrOutside = outside(tests[j]);
          });
        }
      });
    }
    return super.writeReport(JSON.stringify(report));
  }
}
