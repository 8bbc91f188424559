"""The lab (LAB.md): three experiments a teacher runs in front of a class."""
