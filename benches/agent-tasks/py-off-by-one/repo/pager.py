def page(items, number, size):
    """Items of the 1-based page `number`, `size` items per page."""
    start = (number - 1) * size
    return items[start:start + size - 1]
