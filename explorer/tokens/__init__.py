"""What events cost: the ratio estimate of FORMAT.md, a real tokenizer's counts kept in the
database, and a session's events read in an order with their costs."""
