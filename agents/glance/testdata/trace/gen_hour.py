#!/usr/bin/env python3
"""Builds hour.jsonl and mailbox.mbox, the synthetic trace TestBenchGlance
replays. Deterministic (fixed seed): rerun only to change the trace.

  python3 gen_hour.py /path/to/shared/cases/glance

mailbox.mbox is the concatenation of the public cases' mailboxes of one
user (Dana Whitfield, hartleyross.com), without repeated Message-IDs.
hour.jsonl is one window switch a line: t (RFC 3339 wall clock), app,
title, optional screen_text (standing in for OCR), and kind, a human label
of what the window is (the test never checks it against a decision).
"""
import json, os, random, re, sys
from datetime import datetime, timedelta, timezone

here = os.path.dirname(os.path.abspath(__file__))
cases = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "../../../../../shared/cases/glance")

# --- mailbox: Dana's case mailboxes, concatenated, deduplicated ---------
seen, out = set(), []
for d in sorted(os.listdir(cases)):
    cj = os.path.join(cases, d, "case.json")
    mb = os.path.join(cases, d, "mailbox.mbox")
    if not (os.path.exists(cj) and os.path.exists(mb)):
        continue
    if json.load(open(cj))["me"]["name"] != "Dana Whitfield":
        continue
    text = open(mb, encoding="utf-8").read()
    for msg in re.split(r"(?m)^(?=From )", text):
        if not msg.strip():
            continue
        m = re.search(r"(?im)^Message-ID:\s*(\S+)", msg)
        key = m.group(1) if m else msg
        if key in seen:
            continue
        seen.add(key)
        out.append(msg if msg.endswith("\n\n") else msg.rstrip("\n") + "\n\n")
open(os.path.join(here, "mailbox.mbox"), "w", encoding="utf-8").write("".join(out))

# --- windows ------------------------------------------------------------
OL = "Microsoft Outlook"
NEW = "Outlook (new)"
def msg(subject):
    return subject + " - Message (HTML)"

ESTOPPEL_PANE = """Outlook
Q  Search
Home   View   Help
New mail v   Delete   Archive   Report   Sweep   Move to   Reply   Reply all   Forward
Estoppel Certifcate — 44 Pine Street
GE   Grant Ellison <gellison@ellisonmarsh.corn>
     To: Dana Whitfield   Cc: Hana Lee
     Fri 6/19/2026 9:05 AM
Dana,
We can accept your changes to paragraph 5.
Can you confirm that Corvid will sign on that basis?
Reply   Reply all   Forward"""

CHECKLIST_PANE = """Outlook
Q  Search
Home   View   Help
New mail v   Delete   Archive   Report   Sweep   Move to   Reply   Reply all   Forward
RE: Closing Checklist – 1200 Market Street
JC   Janet Cole <jcole@morrowcole.corn>
     To: Dana Whitfield; Ray Baptiste; Sam Iqbal
     Thu 6/18/2026 3:02 PM
All,
Updated checklist (v4) attached; changes since v3 are in blue.
Reply   Reply all   Forward"""

MEMO_PANE = """Outlook
Q  Search
Home   View   Help
New mail v   Delete   Archive   Report   Sweep   Move to   Reply   Reply all   Forward
FW: Recorded Memorandum of Lease – Brooklyn Gardens
LO   Luis Ortega <lortega@hartleyross.com>
     To: Dana Whitfield
     Wed 6/17/2026 11:30 AM
Reply   Reply all   Forward"""

# A list view with nothing open in the reading pane: no header block.
LIST_ONLY = """Outlook
Q  Search
Home   View   Help
New mail v   Delete   Archive   Report   Sweep   Move to
Focused   Other
Grant Ellison   RE: Estoppel Certificate – 44 Pine Street   9:05 AM
Janet Cole   RE: Closing Checklist – 1200 Market Street   Thu 3:02 PM
Property Law Daily   Appellate Court Narrows SNDA Protections   Thu 6:00 AM
Select an item to read
Nothing is selected"""

WORD_TEXT = """AutoSave  Off   Estoppel Certificate – 44 Pine Street – Corvid comments 6-17 • Saved to this PC
File   Home   Insert   Draw   Design   Layout   References   Mailings   Review   View   Help
TENANT ESTOPPEL CERTIFICATE
7. To Tenant's actual knowledge, without investigation, Landlord is not in default under the Lease.
Page 2 of 3    912 words    English (United States)"""

TEAMS_TEXT = """Chat
Evelyn Shore
From: Evelyn Shore
Can you send me the SNDA markup before the Greenleaf call?
Type a message"""

# (weight, kind, app, title, screen_text)
W = [
    # Outlook classic message windows
    (14, "outlook-message needs-reply", OL, msg("RE: Estoppel Certificate – 44 Pine Street"), ""),
    (10, "outlook-message needs-reply", OL, msg("RE: Closing Checklist – 1200 Market Street"), ""),
    (6, "outlook-message already-replied", OL, msg("RE: SNDA - Brooklyn Gardens"), ""),
    (4, "outlook-message already-replied", OL, msg("RE: Greenleaf – status for Thursday client call"), ""),
    (3, "outlook-message already-replied", OL, msg("Brooklyn Gardens – rent commencement date"), ""),
    (4, "outlook-message fyi", OL, msg("FW: Recorded Memorandum of Lease – Brooklyn Gardens"), ""),
    (3, "outlook-message newsletter", OL, msg("Property Law Daily: Appellate Court Narrows SNDA Protections for Tenants"), ""),
    (2, "outlook-message newsletter", OL, msg("Property Law Daily: Retail Landlords Rethink Co-Tenancy Clauses"), ""),
    (2, "outlook-message newsletter", OL, msg("CLE: Commercial Lease Update – June 25, 12:30 PM"), ""),
    # mail that arrived after the last sync: nothing in the index yet
    (2, "outlook-message not-indexed", OL, msg("Lease Amendment No. 2 – 88 Harbor Street"), ""),
    # Outlook main window (classic), a list view without a message open
    (4, "outlook-list nothing-open", OL, "Inbox - dana.whitfield@hartleyross.com - Outlook", ""),
    # new Outlook: always a list view; the reading pane says which message
    (8, "new-outlook reading-pane needs-reply", NEW, "Mail - Dana Whitfield - Outlook", ESTOPPEL_PANE),
    (5, "new-outlook reading-pane needs-reply", NEW, "Mail - Dana Whitfield - Outlook", CHECKLIST_PANE),
    (3, "new-outlook reading-pane fyi", NEW, "Mail - Dana Whitfield - Outlook", MEMO_PANE),
    (4, "new-outlook list nothing-open", NEW, "Mail - Dana Whitfield - Outlook", LIST_ONLY),
    # work that is not email
    (22, "word", "Microsoft Word", "Estoppel Certificate – 44 Pine Street – Corvid comments 6-17 - Word", WORD_TEXT),
    (8, "word", "Microsoft Word", "Closing Checklist - 1200 Market St (v4) - Word", ""),
    (7, "acrobat", "Adobe Acrobat Reader", "SNDA - Brooklyn Gardens (Lender form).pdf - Adobe Acrobat Reader (64-bit)", ""),
    (4, "acrobat", "Adobe Acrobat Reader", "44 Pine Street - Lease (executed 2021-03-03).pdf - Adobe Acrobat Reader (64-bit)", ""),
    (5, "chrome cm-ecf", "Google Chrome", "CM/ECF - U.S. District Court:nysd - Query - Google Chrome", ""),
    (4, "chrome", "Google Chrome", "NYC ACRIS - Document Search - Google Chrome", ""),
    (3, "chrome", "Google Chrome", "Westlaw Precision - Subordination, Non-Disturbance and Attornment - Google Chrome", ""),
    (10, "teams", "Microsoft Teams", "Chat | Evelyn Shore | Microsoft Teams", TEAMS_TEXT),
    (6, "slack", "Slack", "greenleaf-deal (Channel) - Hartley Ross - Slack", ""),
    (3, "terminal", "Terminal", "dana@hr-mbp: ~/matters/greenleaf — zsh — 120×32", ""),
    (3, "explorer", "File Explorer", "Brooklyn Gardens - File Explorer", ""),
    # excluded: password manager, private windows
    (3, "password-manager", "1Password", "1Password", ""),
    (2, "private-window", "Google Chrome", "New Incognito Tab - Google Chrome (Incognito)", ""),
    (1, "private-window", "Microsoft Edge", "New InPrivate tab - [InPrivate] - Microsoft Edge", ""),
]

rng = random.Random(20260619)
start = datetime(2026, 6, 19, 9, 10, tzinfo=timezone(timedelta(hours=-4)))
t = start
weights = [w[0] for w in W]
lines, prev = [], None
for i in range(200):
    # a switch goes somewhere else than the current window
    while True:
        k = rng.choices(range(len(W)), weights)[0]
        if k != prev:
            break
    prev = k
    _, kind, app, title, text = W[k]
    rec = {"t": t.isoformat(), "app": app, "title": title}
    if text:
        rec["screen_text"] = text
    rec["kind"] = kind
    lines.append(json.dumps(rec, ensure_ascii=False))
    t += timedelta(seconds=rng.randint(4, 32))
open(os.path.join(here, "hour.jsonl"), "w", encoding="utf-8").write("\n".join(lines) + "\n")
print(len(out), "messages,", len(lines), "switches, last at", t.isoformat())
