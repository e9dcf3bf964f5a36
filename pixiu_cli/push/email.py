"""E-mail over SMTP: implicit TLS (`security = "ssl"`, port 465), STARTTLS (587), or plain on
this machine only; the whole message in one mail (no size limit worth splitting for). A 4xx
reply and a dropped connection are "later", a 5xx or a refused login a failure."""

from __future__ import annotations

import smtplib
import ssl
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime

from pixiu_cli.clock import SHANGHAI, machine_seconds
from pixiu_cli.push.channels import Channel
from pixiu_cli.push.http import OK, Outcome, fail, later
from pixiu_cli.push.message import Message


class Email(Channel):
    def _mail(self, message: Message) -> EmailMessage:
        mail = EmailMessage()
        sender = self.config.get("from") or self.config.get("user") or f"pixiu@{self.config.get('host')}"
        mail["From"] = sender
        mail["To"] = ", ".join(self.config.get("to"))
        mail["Subject"] = message.title
        mail["Date"] = format_datetime(datetime.fromtimestamp(machine_seconds(), SHANGHAI))  # read by other clocks
        mail.set_content(message.text, charset="utf-8")
        return mail

    def _context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.config.get("ca_file"))

    def _connect(self) -> smtplib.SMTP:
        host, port, security = self.config.get("host"), self.config.get("port"), self.config.get("security")
        if security == "ssl":
            return smtplib.SMTP_SSL(host, port, timeout=self.budget(), context=self._context())
        server = smtplib.SMTP(host, port, timeout=self.budget())
        if security == "starttls":
            server.starttls(context=self._context())
        return server

    def send(self, message, part, index, total) -> Outcome:
        try:
            with self._connect() as server:
                if self.config.get("user") and self.config.get("password"):
                    server.login(self.config.get("user"), self.config.get("password"))
                refused = server.send_message(self._mail(message))
        except smtplib.SMTPAuthenticationError as exc:
            return fail(f"SMTP 登录失败（{exc.smtp_code}）：检查 user 与 password")
        except smtplib.SMTPRecipientsRefused as exc:
            return fail(f"收件人被拒绝：{', '.join(exc.recipients)}")
        except smtplib.SMTPResponseException as exc:
            said = f"SMTP {exc.smtp_code}：{_text(exc.smtp_error)}"
            return later(said) if 400 <= exc.smtp_code < 500 else fail(said)
        except smtplib.SMTPNotSupportedError:
            return fail("服务器不支持 STARTTLS 或登录：检查 security 与端口")
        except ssl.SSLError as exc:
            return fail(f"TLS 失败：{exc.reason or exc}")
        except (smtplib.SMTPServerDisconnected, smtplib.SMTPConnectError, ConnectionError) as exc:
            return later(f"连接中断：{exc}")
        if refused:
            return fail(f"部分收件人被拒绝：{', '.join(refused)}")
        return OK


def _text(raw) -> str:
    return (raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw))[:120]
