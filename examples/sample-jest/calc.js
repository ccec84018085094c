const isNumber = require("is-number");

function add(a, b) {
  if (!isNumber(a) || !isNumber(b)) {
    throw new TypeError("add takes numbers");
  }
  return Number(a) + Number(b);
}

module.exports = { add };
