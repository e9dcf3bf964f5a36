"""E-mail over SMTP: implicit TLS (`security = "ssl"`, port 465), STARTTLS (587), or plain on
this machine only; the whole message in one mail (no size limit worth splitting for). A 4xx
reply and a dropped connection are "later", a 5xx or a refused login a failure."""

from __future__ import annotations

import smtplib
import ssl
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime

from pixiu_cli.brief.push.channels import Channel
from pixiu_cli.brief.push.http import OK, Outcome, Watch, fail, later
from pixiu_cli.brief.push.message import Message
from pixiu_cli.kernel.clock import SHANGHAI, machine_seconds


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

    def _client(self, timeout: float) -> smtplib.SMTP:
        """Not yet connected: the watch follows its socket from the greeting on."""
        if self.config.get("security") == "ssl":
            return smtplib.SMTP_SSL(timeout=timeout, context=self._context())
        return smtplib.SMTP(timeout=timeout)

    def _session(self, client: smtplib.SMTP, message: Message) -> dict:
        with client:
            client._host = self.config.get("host")  # what SMTP(host) sets: the name TLS checks
            code, greeting = client.connect(self.config.get("host"), self.config.get("port"))
            if code != 220:  # what smtplib.SMTP(host) raises for a server that is busy
                raise smtplib.SMTPConnectError(code, greeting)
            if self.config.get("security") == "starttls":
                client.starttls(context=self._context())
            if self.config.get("user") and self.config.get("password"):
                client.login(self.config.get("user"), self.config.get("password"))
            return client.send_message(self._mail(message))

    def _within(self, message: Message) -> dict:
        """The whole SMTP session within the request's time: a server trickling its replies is cut."""
        budget = self.budget()
        client = self._client(budget)
        with Watch(budget) as watch:
            watch.follow(lambda: client.sock)
            try:
                refused = self._session(client, message)
            except (OSError, smtplib.SMTPException):
                if watch.expired:
                    raise TimeoutError("deadline") from None
                raise
        if watch.expired:
            raise TimeoutError("deadline")
        return refused

    def send(self, message, part, index, total) -> Outcome:
        try:
            refused = self._within(message)
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
