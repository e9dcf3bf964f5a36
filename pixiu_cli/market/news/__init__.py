"""News and announcements: the feeds, their store, their information layers and views."""
