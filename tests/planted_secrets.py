"""Planted secrets, one per key type the README's secrets table names, in several languages.

Every value is fake but shaped like the real thing. They are built from pieces at import
time (a seeded generator fills the random part) so this file does not trip secret scanners.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

_RNG = random.Random(27)
_ALNUM = string.ascii_letters + string.digits
_LOWER_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "_-"


def fake(alphabet: str, n: int) -> str:
    """`n` random-looking characters from `alphabet`, the same on every run."""
    return "".join(_RNG.choice(alphabet) for _ in range(n))


@dataclass(frozen=True)
class Planted:
    """One planted secret: the README row it stands for, its value, a variable name for it."""

    row: str
    """The key type, exactly as in the README's secrets table."""
    value: str
    name: str
    """A variable name to assign it to in source (`snake_case`)."""
    secret: str = ""
    """The part that must not survive redaction, when not the whole value (a URL's password)."""
    where: tuple[str, ...] = ("py", "js", "go", "env", "yaml")
    """The contexts it is planted in (see `plant`)."""

    def hidden(self) -> list[str]:
        """What must be gone from the redacted text: the secret, or each line of a key's body."""
        if "PRIVATE KEY" in self.value:
            return [line for line in self.value.splitlines() if "PRIVATE KEY" not in line]
        return [self.secret or self.value]


def _pem(kind: str) -> str:
    body = "\n".join(fake(_B64, 64) for _ in range(4))
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"


def _jwt() -> str:
    head = "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    claims = "eyJ" + "zdWIiOiI0MjQyIiwibmFtZSI6IkEgVGVzdGVyIiwiaWF0IjoxNzAwMDAwMDAwfQ"
    return f"{head}.{claims}.{fake(_URLSAFE, 43)}"


SAMPLES: tuple[Planted, ...] = (
    Planted("AWS access key id", "AKIA" + fake(string.ascii_uppercase + string.digits, 16), "aws_access_key_id"),
    Planted("AWS secret access key", fake(_B64, 40), "aws_secret_access_key"),
    Planted("GitHub classic token", "ghp_" + fake(_ALNUM, 36), "github_token"),
    Planted("GitHub classic token", "gho_" + fake(_ALNUM, 36), "oauth_token"),
    Planted("GitHub classic token", "ghu_" + fake(_ALNUM, 36), "user_token"),
    Planted("GitHub classic token", "ghs_" + fake(_ALNUM, 36), "server_token"),
    Planted("GitHub classic token", "ghr_" + fake(_ALNUM, 36), "refresh_token"),
    Planted("GitHub fine-grained token", "github_pat_" + fake(_ALNUM, 22) + "_" + fake(_ALNUM, 59), "gh_pat"),
    Planted("GitLab token", "glpat-" + fake(_URLSAFE, 20), "gitlab_token"),
    Planted("Slack token", "xoxb-" + fake(string.digits, 12) + "-" + fake(string.digits, 13) + "-"
            + fake(_ALNUM, 24), "slack_bot_token"),
    Planted("Slack token", "xoxp-" + fake(string.digits, 12) + "-" + fake(string.digits, 12) + "-"
            + fake(string.digits, 13) + "-" + fake(_LOWER_HEX, 32), "slack_user_token"),
    Planted("Slack webhook", "https://hooks.slack.com/services/T" + fake(string.ascii_uppercase, 8)
            + "/B" + fake(string.ascii_uppercase, 8) + "/" + fake(_ALNUM, 24), "slack_webhook"),
    Planted("Stripe key", "sk_" + "live_" + fake(_ALNUM, 24), "stripe_key"),
    Planted("Stripe key", "rk_" + "live_" + fake(_ALNUM, 99), "stripe_restricted"),
    Planted("OpenAI key", "sk-" + fake(_ALNUM, 20) + "T3Blbk" + "FJ" + fake(_ALNUM, 20), "openai_key"),
    Planted("OpenAI key", "sk-proj-" + fake(_URLSAFE, 74) + "T3Blbk" + "FJ" + fake(_URLSAFE, 74), "openai_proj"),
    Planted("Anthropic key", "sk-ant-" + "api03-" + fake(_URLSAFE, 93) + "AA", "anthropic_key"),
    Planted("PyPI token", "pypi-" + "AgEIcHlwaS5vcmc" + fake(_URLSAFE, 120), "pypi_upload"),
    Planted("npm token", "npm_" + fake(_ALNUM, 36), "npm_publish"),
    Planted("npm token", "npm_" + fake(_ALNUM, 36), "npmrc", where=("npmrc",)),
    Planted("SendGrid key", "SG." + fake(_URLSAFE, 22) + "." + fake(_URLSAFE, 43), "sendgrid_key"),
    Planted("Twilio key", "SK" + fake(_LOWER_HEX, 32), "twilio_api_sid"),
    Planted("Twilio key", "AC" + fake(_LOWER_HEX, 32), "twilio_account"),
    Planted("Azure storage key", "DefaultEndpointsProtocol=https;AccountName=demo;AccountKey="
            + (_AZURE := fake(_B64, 86) + "=="), "azure_conn", secret=_AZURE),
    Planted("Square access token", "sq0atp-" + fake(_URLSAFE, 22), "square_token"),
    Planted("Square access token", "EAAA" + fake(_URLSAFE, 60), "square_prod"),
    Planted("Square OAuth secret", "sq0csp-" + fake(_URLSAFE, 43), "square_secret"),
    Planted("Google API key", "AIza" + fake(_URLSAFE, 35), "maps_key"),
    Planted("Discord bot token", "M" + fake(_URLSAFE, 23) + "." + fake(_URLSAFE, 6) + "." + fake(_URLSAFE, 27),
            "discord_bot"),
    Planted("Telegram bot token", fake(string.digits, 10) + ":AA" + fake(_URLSAFE, 33), "telegram_bot"),
    Planted("Mailchimp key", fake(_LOWER_HEX, 32) + "-us" + fake(string.digits, 2), "mailchimp"),
    Planted("Hugging Face token", "hf_" + fake(string.ascii_letters, 34), "hf_hub"),
    Planted("JSON web token", _jwt(), "session"),
    Planted("private key block", _pem("RSA PRIVATE KEY"), "rsa_key"),
    Planted("private key block", _pem("EC PRIVATE KEY"), "ec_key"),
    Planted("private key block", _pem("OPENSSH PRIVATE KEY"), "openssh_key"),
    Planted("private key block", _pem("PRIVATE KEY"), "pkcs8_key"),
    Planted("private key block", _pem("PGP PRIVATE KEY BLOCK"), "pgp_key"),
    Planted("password in a URL", "postgres://app:" + (_PG := fake(_ALNUM, 14)) + "@db.internal:5432/app",
            "database_url", secret=_PG),
    Planted("password in a URL", "mysql://root:" + (_MY := fake(_ALNUM, 12)) + "@127.0.0.1/shop",
            "mysql_dsn", secret=_MY),
    Planted("password assigned to a name", "Tr0ub4dor&3-" + fake(_ALNUM, 6), "password",
            where=("py", "js", "go", "env", "yaml", "py-default", "js-default")),
    Planted("password assigned to a name", "s3cr3t-" + fake(_ALNUM, 10), "client_secret"),
    Planted("password assigned to a name", "k-" + fake(_ALNUM, 16), "api_key"),
    Planted("high-entropy token", fake(_LOWER_HEX, 40), "auth_token"),
)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _indent(text: str, pad: str) -> str:
    return "\n".join(pad + line for line in text.splitlines())


def plant(sample: Planted, where: str) -> tuple[str, str]:
    """(file name, text) with `sample` planted as a file of kind `where` would hold it.

    `py`, `js`, `go`: an assignment in source (a multi-line string for key blocks);
    `py-default`, `js-default`: a function parameter's default value;
    `env`: a `.env` line; `yaml`: a mapping entry; `npmrc`: an `.npmrc` auth line.
    """
    value, name = sample.value, sample.name
    multi = "\n" in value
    if where == "py":
        quoted = f'"""{value}"""' if multi else f'"{value}"'
        return "settings.py", f"import os\n\n{name.upper()} = {quoted}\n\n\ndef ready():\n    return True\n"
    if where == "py-default":
        return "db.py", f'def connect(host, {name}="{value}"):\n    return (host, {name})\n'
    if where == "js-default":
        return "db.js", f'function connect(host, {_camel(name)} = "{value}") {{\n  return host;\n}}\n'
    if where == "js":
        quoted = f"`{value}`" if multi else f'"{value}"'
        return "config.js", f"const {_camel(name)} = {quoted};\nmodule.exports = {{ {_camel(name)} }};\n"
    if where == "go":
        quoted = f"`{value}`" if multi else f'"{value}"'
        return "config.go", f"package config\n\nfunc load() string {{\n\t{_camel(name)} := {quoted}\n\treturn {_camel(name)}\n}}\n"
    if where == "env":
        quoted = f'"{value}"' if multi else value
        return ".env", f"DEBUG=false\n{name.upper()}={quoted}\n"
    if where == "yaml":
        shown = "|\n" + _indent(value, "    ") if multi else value
        return "config.yaml", f"service:\n  name: api\n  {name}: {shown}\n"
    if where == "npmrc":
        return ".npmrc", f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={value}\n"
    raise ValueError(where)


def planted() -> list[tuple[Planted, str, str, str]]:
    """Every sample in every context it belongs in: (sample, context, file name, text)."""
    return [(s, where, *plant(s, where)) for s in SAMPLES for where in s.where]
