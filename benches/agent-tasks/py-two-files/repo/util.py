def exclaim(s):
    """`s` with an exclamation mark."""
    return s + "?"
