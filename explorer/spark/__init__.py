"""Audit, sweep and validate on Apache Spark (issue 21): each task runs Turnscope's own engine
on the sessions of its partition, the driver adds up the figures. pyspark is imported only
by :mod:`explorer.spark.engine` and :mod:`explorer.spark.inputs` (``--engine spark``)."""
