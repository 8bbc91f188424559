"""The corpus search's index: the words of every event's text and the events holding each
(words.py says what a word is and what the index can answer of a search; index.py keeps
the index in step with the events). explorer.session.corpus_search asks it."""
