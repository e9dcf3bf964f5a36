"""Push channels: the `[push]` table of config.toml read into channels, a message split to
each channel's size limit, and the request each service documents (企业微信, 飞书, 钉钉,
Telegram, e-mail over SMTP, a generic JSON webhook), sent with retries on the codes that
mean "later". Standard library only (urllib, smtplib, hmac), imported when a push is made."""
