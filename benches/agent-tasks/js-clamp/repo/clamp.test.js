const test = require("node:test");
const assert = require("node:assert");
const { clamp } = require("./clamp.js");

test("keeps values inside", () => assert.strictEqual(clamp(5, 0, 10), 5));
test("caps high values", () => assert.strictEqual(clamp(15, 0, 10), 10));
test("raises low values", () => assert.strictEqual(clamp(-3, 0, 10), 0));
