const { add } = require("../calc");

test("adds two numbers", () => {
  expect(add(2, 3)).toBe(5);
});

test("refuses what is not a number", () => {
  expect(() => add("two", 3)).toThrow(TypeError);
});
