function clamp(value, low, high) {
  return Math.max(low, Math.min(low, value));
}

module.exports = { clamp };
