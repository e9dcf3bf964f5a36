"""Broker statements (交割单 / 对账单) as the clients export them: bytes to text, text to a
table, the table's columns to fills. Nothing here touches the database."""
