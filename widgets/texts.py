"""Fixed texts the window shows: ordering modes explained, file-dialog filters."""

from explorer.formats.file_patterns import open_filters
from explorer.model import Order

ORDER_TEXT = {
    Order.SEQ: "Append order (seq, sub): how the log was written.",
    Order.TS: "Timestamp order, ties broken by append order.",
    Order.TS_UNSTABLE: "Timestamp order with ties reversed: what an unstable sort may show.",
}
#: File → Open's filters: every format Turnscope reads (the default), one per format, all files.
LOG_FILTER = ";;".join(open_filters())
DATABASE_FILTER = "Turnscope databases (*.duckdb *.db);;All files (*)"

