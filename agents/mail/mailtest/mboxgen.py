"""The mbox writer the Python case generators share
(agents/glance/testdata/gen_mail_cases.py,
agents/calendar/testdata/gen_cases.py): messages as a mail client sends
them, one mbox file a case. Import it with
sys.path.insert(0, <this folder>)."""
from datetime import timezone
from email.header import Header
from email.utils import format_datetime, formataddr


class Msg:
    def __init__(self, mid, date, frm, to, subject, body, cc=(), reply_to=(), headers=()):
        self.mid, self.date, self.frm, self.to, self.subject, self.body = mid, date, frm, to, subject, body
        self.cc, self.reply_to, self.headers = list(cc or ()), list(reply_to or ()), list(headers or ())


def addr(p):
    # Names and subjects outside ASCII go as RFC 2047 words, as mail
    # clients send them.
    return formataddr(p, charset="utf-8") if p[0] else p[1]


def hdr(s):
    return s if s.isascii() else Header(s, "utf-8").encode()


def mbox(msgs):
    out = []
    for m in msgs:
        d = m.date.astimezone(timezone.utc).strftime("%a %b %d %H:%M:%S %Y")
        out.append(f"From {m.frm[1]} {d}")
        out.append(f"Message-ID: {m.mid}")
        out.append(f"Date: {format_datetime(m.date)}")
        out.append(f"From: {addr(m.frm)}")
        out.append("To: " + ", ".join(addr(p) for p in m.to))
        if m.cc:
            out.append("Cc: " + ", ".join(addr(p) for p in m.cc))
        out.append("Subject: " + hdr(m.subject))
        if m.reply_to:
            out.append(f"In-Reply-To: {m.reply_to[-1]}")
            out.append("References: " + " ".join(m.reply_to))
        out.extend(m.headers)
        out.append("MIME-Version: 1.0")
        out.append('Content-Type: text/plain; charset="utf-8"')
        out.append("Content-Transfer-Encoding: 8bit")
        out.append("")
        # mboxo: a body line starting "From " is quoted.
        for l in m.body.strip("\n").split("\n"):
            out.append((">" + l) if l.startswith("From ") else l)
        out.append("")
    return "\n".join(out) + "\n"
