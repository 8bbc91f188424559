"""Fixed texts the window shows: ordering modes explained, file-dialog filters."""

from explorer.model import Order

ORDER_TEXT = {
    Order.SEQ: "Append order (seq, sub): how the log was written.",
    Order.TS: "Timestamp order, ties broken by append order.",
    Order.TS_UNSTABLE: "Timestamp order with ties reversed: what an unstable sort may show.",
}
LOG_FILTER = ("Session logs (*.jsonl *.ndjson *.jsonl.gz *.ndjson.gz *.json *.json.gz *.yaml *.yml "
              "*.har *.traj *.eval *.parquet *.csv);;All files (*)")

