"""Writes the calendar cases of this folder: python3 gen_cases.py testdata
(from agents/calendar), then check them with
python3 ../shared/cases/check_calendar.py testdata. Each case says in its
comment what it covers; the expectations follow the calendar/ rules of the
cases README, not Spirit's output."""
import json, os, sys
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "mail", "mailtest"))
from mboxgen import Msg, addr, mbox  # noqa: E402  (the shared mbox writer)

ROOT = sys.argv[1]

VTZ = {
 "America/New_York": """BEGIN:VTIMEZONE
TZID:America/New_York
BEGIN:DAYLIGHT
TZOFFSETFROM:-0500
TZOFFSETTO:-0400
TZNAME:EDT
DTSTART:19700308T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:-0400
TZOFFSETTO:-0500
TZNAME:EST
DTSTART:19701101T020000
RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU
END:STANDARD
END:VTIMEZONE""",
 "GMT Standard Time": """BEGIN:VTIMEZONE
TZID:GMT Standard Time
BEGIN:STANDARD
DTSTART:16010101T020000
TZOFFSETFROM:+0100
TZOFFSETTO:+0000
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010101T010000
TZOFFSETFROM:+0000
TZOFFSETTO:+0100
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
END:DAYLIGHT
END:VTIMEZONE""",
 "Pacific Standard Time": """BEGIN:VTIMEZONE
TZID:Pacific Standard Time
BEGIN:STANDARD
DTSTART:16010101T020000
TZOFFSETFROM:-0700
TZOFFSETTO:-0800
RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010101T020000
TZOFFSETFROM:-0800
TZOFFSETTO:-0700
RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3
END:DAYLIGHT
END:VTIMEZONE""",
}

def fold(line):
    out = []
    b = line
    while len(b) > 74:
        out.append(b[:74]); b = " " + b[74:]
    out.append(b)
    return "\r\n".join(out)

def ics(zones, events, prodid="-//Spirit tests//Calendar cases//EN"):
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:" + prodid, "CALSCALE:GREGORIAN"]
    for z in zones:
        lines += VTZ[z].split("\n")
    for ev in events:
        lines.append("BEGIN:VEVENT")
        for l in ev:
            lines.append(l)
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return "\r\n".join(fold(l) for l in lines) + "\r\n"

def person(kind, name, addr, partstat=None):
    p = f'{kind};CN="{name}"'
    if partstat:
        p += f";PARTSTAT={partstat}"
    return p + f":mailto:{addr}"

def write(cid, now, me, cal, msgs, expect):
    d = os.path.join(ROOT, "calendar", cid)
    os.makedirs(d, exist_ok=True)
    case = {"id": cid, "now": now, "me": me, "expect": expect}
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(case, f, indent=2); f.write("\n")
    with open(os.path.join(d, "calendar.ics"), "w", newline="") as f:
        f.write(cal)
    with open(os.path.join(d, "mailbox.mbox"), "w") as f:
        f.write(mbox(msgs))

def tz(h):
    return timezone(timedelta(hours=h))

ET = tz(-4)
EST = tz(-5)
PT = tz(-7)
BST = tz(1)
CET = tz(2)

# People
ME1 = {"name": "Priya Raman", "addresses": ["priya.raman@lindqvistraman.com", "praman@lindqvistraman.com"]}
PR = ("Priya Raman", "priya.raman@lindqvistraman.com")
OWEN = ("Owen Hartigan", "ohartigan@hartiganbuild.com")
TESS = ("Tess Marlowe", "tmarlowe@marlowecap.com")
JUNE = ("June Okafor", "june@okaforpartners.com")
SAM = ("Sam Lindqvist", "slindqvist@lindqvistraman.com")
BEN = ("Ben Adair", "badair@adairtitle.com")
NEWS = ("Law360 Real Estate", "newsletters@law360news.com")

def open_thread(prefix, frm, when, subject, ask, me=PR, first_from_me=True, cc=None):
    """Lawyer writes first, then frm asks something: an open thread."""
    a = f"<{prefix}.1@mail.lindqvistraman.com>"
    b = f"<{prefix}.2@{frm[1].split('@')[1]}>"
    m1 = Msg(a, when - timedelta(days=2), me, [frm], subject,
             f"{frm[0].split()[0]},\n\nAttached is our markup of the {subject.lower()}. Happy to walk through it.\n\nPriya\n")
    m2 = Msg(b, when, frm, [me], "RE: " + subject,
             f"Priya,\n\nThanks for the markup. {ask}\n\nBest,\n{frm[0].split()[0]}\n", reply_to=[a], cc=cc)
    return [m1, m2], b

def answered_thread(prefix, frm, when, subject, me=PR):
    a = f"<{prefix}.1@{frm[1].split('@')[1]}>"
    b = f"<{prefix}.2@mail.lindqvistraman.com>"
    m1 = Msg(a, when - timedelta(hours=5), frm, [me], subject,
             f"Priya,\n\nCan you send me the signature pages for the {subject.lower()} today?\n\nThanks,\n{frm[0].split()[0]}\n")
    m2 = Msg(b, when, me, [frm], "RE: " + subject,
             f"{frm[0].split()[0]},\n\nAttached are the signature pages.\n\nPriya\n", reply_to=[a])
    return [m1, m2]

def fyi_thread(prefix, frm, when, subject, me=PR):
    a = f"<{prefix}.1@{frm[1].split('@')[1]}>"
    return [Msg(a, when, frm, [me], subject,
                f"Priya,\n\nFor your files, attached is the fully executed copy of the {subject.lower()}. No action is needed on your end.\n\n{frm[0].split()[0]}\n")]

def newsletter(prefix, when):
    a = f"<{prefix}.1@law360news.com>"
    return [Msg(a, when, NEWS, [PR], "Real estate week: what lenders want in an SNDA",
                "Can your lease survive a foreclosure? This week's top stories.\n\nTo unsubscribe or manage your email preferences, click here.\n",
                headers=["List-Unsubscribe: <mailto:unsubscribe@law360news.com>", "Precedence: bulk"])]

def base_event(uid, summary, start, end, org=None, atts=(), extra=()):
    ev = [f"UID:{uid}", "DTSTAMP:20260101T000000Z", f"SUMMARY:{summary}", start, end]
    if org:
        ev.append(person("ORGANIZER", *org))
    for a in atts:
        ev.append(person("ATTENDEE", *a))
    ev += list(extra)
    return ev

# 1. DAILY with COUNT: the fifth day's occurrence, 10 minutes ahead.
def c1():
    now = datetime(2026, 9, 11, 8, 50, tzinfo=ET)
    msgs, mid = open_thread("dc1", OWEN, datetime(2026, 9, 10, 17, 5, tzinfo=ET), "Change order 14 - Harbor Point",
                            "Could you confirm whether the owner has to approve change order 14 in writing before we proceed?")
    msgs += fyi_thread("dc1b", TESS, datetime(2026, 9, 9, 9, 0, tzinfo=ET), "Harbor Point payoff letter")
    cal = ics(["America/New_York"], [
        base_event("daily-standup-hp@lindqvistraman.com", "Harbor Point construction standup",
                   "DTSTART;TZID=America/New_York:20260907T090000", "DTEND;TZID=America/New_York:20260907T091500",
                   ("Priya Raman", PR[1]), [(PR[0], PR[1], "ACCEPTED"), (OWEN[0], OWEN[1], "ACCEPTED")],
                   ["RRULE:FREQ=DAILY;COUNT=10", "STATUS:CONFIRMED", "TRANSP:OPAQUE"]),
        base_event("lunch-tess@lindqvistraman.com", "Lunch with Tess Marlowe",
                   "DTSTART;TZID=America/New_York:20260911T123000", "DTEND;TZID=America/New_York:20260911T133000",
                   ("Priya Raman", PR[1]), [(TESS[0], TESS[1], "ACCEPTED")]),
    ])
    write("daily-count-fifth-standup", now.isoformat(), ME1, cal, msgs,
          {"nudge": True, "event_uid": "daily-standup-hp@lindqvistraman.com",
           "recurrence_id": "2026-09-11T09:00:00-04:00", "message_ids": [mid]})

# 2. WEEKLY BYDAY with UNTIL in the past: the series is over; nothing else qualifies.
def c2():
    now = datetime(2026, 9, 16, 10, 52, tzinfo=ET)  # a Wednesday
    msgs, mid = open_thread("wu2", JUNE, datetime(2026, 9, 15, 15, 0, tzinfo=ET), "Okafor JV operating agreement",
                            "Can we move the capital call notice period to 15 business days?")
    cal = ics(["America/New_York"], [
        base_event("jv-weekly@okaforpartners.com", "Okafor JV - weekly drafting session",
                   "DTSTART;TZID=America/New_York:20260720T110000", "DTEND;TZID=America/New_York:20260720T120000",
                   JUNE, [(PR[0], PR[1], "ACCEPTED"), (JUNE[0], JUNE[1], "ACCEPTED")],
                   ["RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20260909T150000Z"]),
        base_event("focus-okafor@lindqvistraman.com", "Focus: Okafor JV redline",
                   "DTSTART;TZID=America/New_York:20260916T110000", "DTEND;TZID=America/New_York:20260916T120000",
                   None, [], ["TRANSP:OPAQUE"]),
    ])
    write("weekly-byday-until-over", now.isoformat(), ME1, cal, msgs, {"nudge": False})

# 3. RDATE adds an extra session of a series that has no rule.
def c3():
    now = datetime(2026, 10, 2, 13, 47, tzinfo=ET)
    msgs, mid = open_thread("rd3", BEN, datetime(2026, 10, 1, 16, 20, tzinfo=ET), "Title commitment - 88 Wharf Road",
                            "Please let me know if the buyer will accept the survey exception in Schedule B-II, item 7.")
    cal = ics(["America/New_York"], [
        base_event("closing-prep-88wharf@adairtitle.com", "88 Wharf Road - closing prep",
                   "DTSTART;TZID=America/New_York:20260925T140000", "DTEND;TZID=America/New_York:20260925T143000",
                   BEN, [(PR[0], PR[1], "ACCEPTED"), (BEN[0], BEN[1], "ACCEPTED")],
                   ["RDATE;TZID=America/New_York:20260929T140000,20261002T140000"]),
    ])
    write("rdate-extra-closing-prep", now.isoformat(), ME1, cal, msgs,
          {"nudge": True, "event_uid": "closing-prep-88wharf@adairtitle.com",
           "recurrence_id": "2026-10-02T14:00:00-04:00", "message_ids": [mid]})

# 4. EXDATE removes today's weekly call; the call 10 minutes later is the one.
def c4():
    now = datetime(2026, 10, 6, 9, 55, tzinfo=ET)  # Tuesday
    t1, m1 = open_thread("ex4a", TESS, datetime(2026, 10, 5, 11, 0, tzinfo=ET), "Marlowe Capital credit agreement",
                         "Would you confirm the reserve requirement in Section 7.3 works for the borrower?")
    t2, m2 = open_thread("ex4b", OWEN, datetime(2026, 10, 5, 14, 0, tzinfo=ET), "Harbor Point lien waivers",
                         "Can you send me the form of conditional lien waiver you want the subs to use?")
    cal = ics(["America/New_York"], [
        base_event("marlowe-weekly@marlowecap.com", "Marlowe Capital weekly",
                   "DTSTART;TZID=America/New_York:20260901T100000", "DTEND;TZID=America/New_York:20260901T103000",
                   TESS, [(PR[0], PR[1], "ACCEPTED"), (TESS[0], TESS[1], "ACCEPTED")],
                   ["RRULE:FREQ=WEEKLY;BYDAY=TU", "EXDATE;TZID=America/New_York:20261006T100000"]),
        base_event("harbor-liens@hartiganbuild.com", "Harbor Point lien waivers call",
                   "DTSTART;TZID=America/New_York:20261006T100500", "DTEND;TZID=America/New_York:20261006T103000",
                   OWEN, [(PR[0], PR[1], "ACCEPTED"), (OWEN[0], OWEN[1], "ACCEPTED")]),
    ])
    write("exdate-then-next-call", now.isoformat(), ME1, cal, t1 + t2,
          {"nudge": True, "event_uid": "harbor-liens@hartiganbuild.com", "recurrence_id": None, "message_ids": [m2]})

# 5. A RECURRENCE-ID override moves today's occurrence out of the window.
def c5():
    now = datetime(2026, 10, 8, 9, 50, tzinfo=ET)  # Thursday
    t1, m1 = open_thread("ov5a", JUNE, datetime(2026, 10, 7, 11, 0, tzinfo=ET), "Okafor JV side letter",
                         "Could you tell me whether the side letter needs board approval?")
    t2, m2 = open_thread("ov5b", BEN, datetime(2026, 10, 7, 15, 30, tzinfo=ET), "Wharf Road title bring-down",
                         "Can you confirm the closing date so I can order the bring-down?")
    rec = [(PR[0], PR[1], "ACCEPTED"), (JUNE[0], JUNE[1], "ACCEPTED")]
    cal = ics(["America/New_York"], [
        base_event("okafor-thursdays@okaforpartners.com", "Okafor JV - Thursday check-in",
                   "DTSTART;TZID=America/New_York:20260903T100000", "DTEND;TZID=America/New_York:20260903T103000",
                   JUNE, rec, ["RRULE:FREQ=WEEKLY;BYDAY=TH"]),
        base_event("okafor-thursdays@okaforpartners.com", "Okafor JV - Thursday check-in (moved)",
                   "DTSTART;TZID=America/New_York:20261008T160000", "DTEND;TZID=America/New_York:20261008T163000",
                   JUNE, rec, ["RECURRENCE-ID;TZID=America/New_York:20261008T100000", "SEQUENCE:1"]),
        base_event("wharf-bringdown@adairtitle.com", "Wharf Road - bring-down call",
                   "DTSTART:20261008T140500Z", "DTEND:20261008T143000Z",
                   BEN, [(PR[0], PR[1], "ACCEPTED")]),
    ])
    write("override-moved-out-of-window", now.isoformat(), ME1, cal, t1 + t2,
          {"nudge": True, "event_uid": "wharf-bringdown@adairtitle.com", "recurrence_id": None, "message_ids": [m2]})

# 6. Weekly series defined in winter (GMT) read in summer (BST) with an Outlook VTIMEZONE.
def c6():
    me = {"name": "Alistair Penrose", "addresses": ["alistair.penrose@penrosefield.co.uk"]}
    AP = ("Alistair Penrose", "alistair.penrose@penrosefield.co.uk")
    CL = ("Clara Voss", "clara.voss@vossimmobilien.de")
    now = datetime(2026, 4, 8, 9, 47, tzinfo=BST)  # Wednesday after the spring change
    a = "<pf6.1@penrosefield.co.uk>"
    b = "<pf6.2@vossimmobilien.de>"
    msgs = [Msg(a, datetime(2026, 4, 6, 16, 0, tzinfo=BST), AP, [CL], "Lease of Unit 4, Canary Quay",
                "Clara,\n\nOur comments on the rent review clause are attached.\n\nAlistair\n"),
            Msg(b, datetime(2026, 4, 7, 18, 30, tzinfo=CET), CL, [AP], "AW: Lease of Unit 4, Canary Quay",
                "Alistair,\n\nthank you. Can you explain why the review should be upwards only?\n\nClara\n", reply_to=[a])]
    cal = ics(["GMT Standard Time"], [
        base_event("040000008200E00074C5B7101A82E0080000000001CANARY", "Canary Quay - Unit 4 lease",
                   'DTSTART;TZID="GMT Standard Time":20260107T100000', 'DTEND;TZID="GMT Standard Time":20260107T103000',
                   AP, [(CL[0], CL[1], "ACCEPTED")], ["RRULE:FREQ=WEEKLY;BYDAY=WE", "TRANSP:OPAQUE"]),
    ], prodid="-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN")
    write("vtimezone-weekly-across-dst", now.isoformat(), me, cal, msgs,
          {"nudge": True, "event_uid": "040000008200E00074C5B7101A82E0080000000001CANARY",
           "recurrence_id": "2026-04-08T10:00:00+01:00", "message_ids": [b]})

# 7. UTC times: the first meeting was declined by the lawyer, the second is the one.
def c7():
    now = datetime(2026, 11, 3, 14, 50, tzinfo=EST)
    t1, m1 = open_thread("ut7a", TESS, datetime(2026, 11, 2, 10, 0, tzinfo=EST), "Marlowe Capital intercreditor",
                         "Can you confirm the standstill period is 120 days?")
    t2, m2 = open_thread("ut7b", OWEN, datetime(2026, 11, 2, 13, 0, tzinfo=EST), "Harbor Point retainage",
                         "Would you let me know if retainage can drop to 5% at substantial completion?")
    cal = ics([], [
        base_event("intercreditor-call@marlowecap.com", "Intercreditor call",
                   "DTSTART:20261103T195500Z", "DTEND:20261103T202500Z",
                   TESS, [(PR[0], PR[1], "DECLINED"), (TESS[0], TESS[1], "ACCEPTED")]),
        base_event("retainage-call@hartiganbuild.com", "Harbor Point retainage",
                   "DTSTART:20261103T200300Z", "DTEND:20261103T203000Z",
                   OWEN, [(PR[0], PR[1], "TENTATIVE"), (OWEN[0], OWEN[1], "ACCEPTED")]),
    ])
    write("utc-declined-then-tentative", now.isoformat(), ME1, cal, t1 + t2,
          {"nudge": True, "event_uid": "retainage-call@hartiganbuild.com", "recurrence_id": None, "message_ids": [m2]})

# 8. Floating time read in the offset of now; a zoned event that would match if read as UTC is elsewhere.
def c8():
    me = {"name": "Lena Brandt", "addresses": ["lena.brandt@brandtlegal.de"]}
    LB = ("Lena Brandt", "lena.brandt@brandtlegal.de")
    MK = ("Mats Kruger", "mats@krugerbau.de")
    now = datetime(2026, 6, 10, 14, 52, tzinfo=CET)
    a = "<fl8.1@krugerbau.de>"
    msgs = [Msg(a, datetime(2026, 6, 9, 11, 0, tzinfo=CET), MK, [LB], "Bauvertrag Lindenhof - Abnahme",
                "Lena,\n\ncould you check whether the acceptance protocol has to be signed by both managing directors?\n\nMats\n")]
    cal = ics([], [
        base_event("floating-lindenhof-1", "Lindenhof - call with Mats",
                   "DTSTART:20260610T150500", "DTEND:20260610T153000",
                   LB, [(MK[0], MK[1], "ACCEPTED")]),
        base_event("utc-lindenhof-2", "Lindenhof - site meeting",
                   "DTSTART:20260610T150000Z", "DTEND:20260610T153000Z",
                   LB, [(MK[0], MK[1], "ACCEPTED")]),
    ])
    write("floating-in-offset-of-now", now.isoformat(), me, cal, msgs,
          {"nudge": True, "event_uid": "floating-lindenhof-1", "recurrence_id": None, "message_ids": [a]})

# 9. Only free and all-day events in the window.
def c9():
    now = datetime(2026, 9, 21, 23, 50, tzinfo=ET)
    t1, m1 = open_thread("tr9", JUNE, datetime(2026, 9, 21, 9, 0, tzinfo=ET), "Okafor JV waterfall",
                         "Can you run the waterfall with a 9% pref?")
    cal = ics(["America/New_York"], [
        base_event("allday-okafor-signing", "Okafor JV signing day",
                   "DTSTART;VALUE=DATE:20260922", "DTEND;VALUE=DATE:20260923",
                   PR, [(JUNE[0], JUNE[1], "ACCEPTED")]),
        base_event("free-okafor-hold", "Hold: Okafor JV call",
                   "DTSTART;TZID=America/New_York:20260922T000000", "DTEND;TZID=America/New_York:20260922T003000",
                   PR, [(JUNE[0], JUNE[1], "ACCEPTED")], ["TRANSP:TRANSPARENT"]),
    ])
    write("only-free-and-all-day", now.isoformat(), ME1, cal, t1, {"nudge": False})

# 10. The organizer is the only other person; the lawyer is not listed as attendee.
def c10():
    now = datetime(2026, 9, 14, 15, 46, tzinfo=ET)
    t1, m1 = open_thread("og10", BEN, datetime(2026, 9, 12, 10, 0, tzinfo=ET), "Escrow instructions - 12 Mill Lane",
                         "Please confirm the escrow agent may release the deposit on the closing date.")
    cal = ics(["America/New_York"], [
        base_event("mill-lane-escrow@adairtitle.com", "12 Mill Lane - escrow",
                   "DTSTART;TZID=America/New_York:20260914T160000", "DTEND;TZID=America/New_York:20260914T162000",
                   BEN, [], ["STATUS:CONFIRMED"]),
    ])
    write("organizer-only-other-person", now.isoformat(), ME1, cal, t1,
          {"nudge": True, "event_uid": "mill-lane-escrow@adairtitle.com", "recurrence_id": None, "message_ids": [m1]})

# 11. Nobody else on the meeting; the open mail is from someone not invited.
def c11():
    now = datetime(2026, 9, 15, 10, 55, tzinfo=ET)
    t1, m1 = open_thread("al11", TESS, datetime(2026, 9, 14, 10, 0, tzinfo=ET), "Marlowe Capital term sheet",
                         "Can you turn the term sheet by Thursday?")
    cal = ics(["America/New_York"], [
        base_event("solo-block@lindqvistraman.com", "Draft Marlowe term sheet",
                   "DTSTART;TZID=America/New_York:20260915T110000", "DTEND;TZID=America/New_York:20260915T120000",
                   PR, [(PR[0], PR[1], "ACCEPTED"), ("Priya R.", PR[1].upper(), "ACCEPTED")]),
        base_event("solo-block-2@lindqvistraman.com", "Call Tess re term sheet",
                   "DTSTART;TZID=America/New_York:20260915T110500", "DTEND;TZID=America/New_York:20260915T111500",
                   None, [(PR[0], "praman@lindqvistraman.com", "ACCEPTED")]),
    ])
    write("no-other-people", now.isoformat(), ME1, cal, t1, {"nudge": False})

# 12. Meeting people have mail, but answered, FYI, newsletter, and an open thread older than 30 days.
def c12():
    now = datetime(2026, 10, 20, 13, 50, tzinfo=ET)
    msgs = answered_thread("an12a", OWEN, datetime(2026, 10, 19, 16, 0, tzinfo=ET), "Harbor Point certificate of occupancy")
    msgs += fyi_thread("an12b", OWEN, datetime(2026, 10, 16, 9, 0, tzinfo=ET), "Harbor Point insurance certificate")
    msgs += newsletter("an12c", datetime(2026, 10, 19, 7, 0, tzinfo=ET))
    old, _ = open_thread("an12d", OWEN, datetime(2026, 9, 10, 9, 0, tzinfo=ET), "Harbor Point punch list",
                         "Can you review the punch list procedure?")
    msgs += old
    cal = ics(["America/New_York"], [
        base_event("harbor-co-call@hartiganbuild.com", "Harbor Point - CO and closeout",
                   "DTSTART;TZID=America/New_York:20261020T140000", "DTEND;TZID=America/New_York:20261020T143000",
                   OWEN, [(PR[0], PR[1], "ACCEPTED"), (OWEN[0], OWEN[1], "ACCEPTED"),
                          ("Law360 Real Estate", NEWS[1], "NEEDS-ACTION")]),
    ])
    write("answered-fyi-newsletter-stale", now.isoformat(), ME1, cal, msgs, {"nudge": False})

# 13. The occurrence in the window was cancelled through an override.
def c13():
    now = datetime(2026, 10, 13, 9, 50, tzinfo=ET)  # Tuesday
    t1, m1 = open_thread("cx13", TESS, datetime(2026, 10, 12, 9, 0, tzinfo=ET), "Marlowe Capital fee letter",
                         "Could you confirm the exit fee applies on a refinancing?")
    rec = [(PR[0], PR[1], "ACCEPTED"), (TESS[0], TESS[1], "ACCEPTED")]
    cal = ics(["America/New_York"], [
        base_event("marlowe-tuesdays@marlowecap.com", "Marlowe Capital weekly",
                   "DTSTART;TZID=America/New_York:20260901T100000", "DTEND;TZID=America/New_York:20260901T103000",
                   TESS, rec, ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=20"]),
        base_event("marlowe-tuesdays@marlowecap.com", "Canceled: Marlowe Capital weekly",
                   "DTSTART;TZID=America/New_York:20261013T100000", "DTEND;TZID=America/New_York:20261013T103000",
                   TESS, rec, ["RECURRENCE-ID;TZID=America/New_York:20261013T100000", "STATUS:CANCELLED", "SEQUENCE:2"]),
    ])
    write("override-cancelled-occurrence", now.isoformat(), ME1, cal, t1, {"nudge": False})

# 14. The earliest qualifying meeting has no open mail: no nudge, even though a later one in the window has.
def c14():
    now = datetime(2026, 10, 21, 10, 46, tzinfo=ET)
    t1, m1 = open_thread("ea14", JUNE, datetime(2026, 10, 20, 9, 0, tzinfo=ET), "Okafor JV transfer restrictions",
                         "Can you explain how the ROFO interacts with the tag-along?")
    cal = ics(["America/New_York"], [
        base_event("sam-sync@lindqvistraman.com", "Sync with Sam",
                   "DTSTART;TZID=America/New_York:20261021T105000", "DTEND;TZID=America/New_York:20261021T110000",
                   PR, [(SAM[0], SAM[1], "ACCEPTED")]),
        base_event("okafor-transfer@okaforpartners.com", "Okafor JV - transfer provisions",
                   "DTSTART;TZID=America/New_York:20261021T110000", "DTEND;TZID=America/New_York:20261021T113000",
                   JUNE, [(PR[0], PR[1], "ACCEPTED")]),
    ])
    write("earliest-meeting-has-no-mail", now.isoformat(), ME1, cal, t1, {"nudge": False})

# 15. An override moves a later occurrence into the window (recurrence id is the original start).
def c15():
    now = datetime(2026, 11, 5, 8, 50, tzinfo=EST)  # Thursday, after the fall change
    t1, m1 = open_thread("mi15", JUNE, datetime(2026, 11, 4, 17, 0, tzinfo=EST), "Okafor JV budget",
                         "Could you confirm the budget approval threshold is $250,000?",
                         cc=[SAM])
    rec = [(PR[0], PR[1], "ACCEPTED"), (JUNE[0], JUNE[1], "ACCEPTED"), (SAM[0], SAM[1], "ACCEPTED")]
    cal = ics(["America/New_York"], [
        base_event("okafor-weekly-2@okaforpartners.com", "Okafor JV weekly",
                   "DTSTART;TZID=America/New_York:20260910T150000", "DTEND;TZID=America/New_York:20260910T153000",
                   JUNE, rec, ["RRULE:FREQ=WEEKLY;INTERVAL=1;BYDAY=TH;UNTIL=20261231T235959Z"]),
        base_event("okafor-weekly-2@okaforpartners.com", "Okafor JV weekly (early this week)",
                   "DTSTART;TZID=America/New_York:20261105T090000", "DTEND;TZID=America/New_York:20261105T093000",
                   JUNE, rec, ["RECURRENCE-ID;TZID=America/New_York:20261105T150000", "SEQUENCE:1"]),
    ])
    write("override-moved-into-window-after-dst", now.isoformat(), ME1, cal, t1,
          {"nudge": True, "event_uid": "okafor-weekly-2@okaforpartners.com",
           "recurrence_id": "2026-11-05T15:00:00-05:00", "message_ids": [m1]})

# 16. Two open threads with two attendees, plus a newsletter from one's domain list.
def c16():
    now = datetime(2026, 9, 30, 16, 48, tzinfo=PT)
    me = {"name": "Priya Raman", "addresses": ["priya.raman@lindqvistraman.com"]}
    t1, m1 = open_thread("tw16a", TESS, datetime(2026, 9, 29, 12, 0, tzinfo=PT), "Marlowe Capital guaranty",
                         "Can the guaranty cap be 25% of the loan amount?")
    t2, m2 = open_thread("tw16b", BEN, datetime(2026, 9, 30, 9, 0, tzinfo=PT), "Marlowe loan title endorsements",
                         "Would you send me the list of endorsements the lender requires?")
    cal = ics(["Pacific Standard Time"], [
        base_event("040000008200E00074C5B7101A82E0080000000002MARLOWE", "Marlowe loan - all hands",
                   'DTSTART;TZID="Pacific Standard Time":20260930T170000', 'DTEND;TZID="Pacific Standard Time":20260930T180000',
                   PR, [(TESS[0], TESS[1].upper(), "ACCEPTED"), (BEN[0], BEN[1], "NEEDS-ACTION")]),
    ], prodid="-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN")
    write("two-attendees-two-threads-outlook-zone", now.isoformat(), me, cal, t1 + t2 + newsletter("tw16c", datetime(2026, 9, 30, 6, 0, tzinfo=PT)),
          {"nudge": True, "event_uid": "040000008200E00074C5B7101A82E0080000000002MARLOWE",
           "recurrence_id": None, "message_ids": [m1, m2]})

# 17. The person's question went to a colleague, the lawyer only saw it (not in To/Cc).
def c17():
    now = datetime(2026, 10, 27, 11, 48, tzinfo=ET)
    a = "<bc17.1@hartiganbuild.com>"
    msgs = [Msg(a, datetime(2026, 10, 26, 15, 0, tzinfo=ET), OWEN, [SAM], "Harbor Point warranty bond",
                "Sam,\n\nCan you confirm the warranty bond amount the owner will accept?\n\nOwen\n")]
    b = "<bc17.2@hartiganbuild.com>"
    msgs += [Msg(b, datetime(2026, 10, 26, 16, 0, tzinfo=ET), OWEN, [PR], "Harbor Point site photos",
                 "Priya,\n\nSite photos from today are in the shared folder for your files.\n\nOwen\n")]
    cal = ics(["America/New_York"], [
        base_event("harbor-bond@hartiganbuild.com", "Harbor Point - bonds",
                   "DTSTART;TZID=America/New_York:20261027T120000", "DTEND;TZID=America/New_York:20261027T123000",
                   OWEN, [(PR[0], PR[1], "ACCEPTED"), (SAM[0], SAM[1], "ACCEPTED")]),
    ])
    write("question-to-a-colleague-not-the-lawyer", now.isoformat(), ME1, cal, msgs, {"nudge": False})

# 18. Two threads with the same subject from the same person: the open one, and a later one already answered.
def c18():
    now = datetime(2026, 9, 14, 15, 46, tzinfo=ET)
    t1, m1 = open_thread("am1", BEN, datetime(2026, 9, 12, 10, 0, tzinfo=ET), "Escrow instructions",
                         "Please confirm the escrow agent may release the deposit on the closing date.")
    t2 = answered_thread("am2", BEN, datetime(2026, 9, 13, 10, 0, tzinfo=ET), "Escrow instructions")
    cal = ics(["America/New_York"], [
        base_event("mill-lane-escrow-2@adairtitle.com", "12 Mill Lane - escrow",
                   "DTSTART;TZID=America/New_York:20260914T160000", "DTEND;TZID=America/New_York:20260914T162000",
                   BEN, [], ["STATUS:CONFIRMED"]),
    ])
    write("same-subject-later-thread-answered", now.isoformat(), ME1, cal, t1 + t2,
          {"nudge": True, "event_uid": "mill-lane-escrow-2@adairtitle.com", "recurrence_id": None, "message_ids": [m1]})

# 19. A bare subject that is also the name of a mail client's window.
def c19():
    now = datetime(2026, 11, 10, 9, 50, tzinfo=EST)
    a = "<rm19.1@marlowecap.com>"
    msgs = [Msg(a, datetime(2026, 11, 9, 16, 0, tzinfo=EST), TESS, [PR], "Reminder",
                "Priya,\n\nCould you send me the updated closing checklist before we talk tomorrow?\n\nTess\n")]
    cal = ics(["America/New_York"], [
        base_event("marlowe-checklist@marlowecap.com", "Marlowe - closing checklist",
                   "DTSTART;TZID=America/New_York:20261110T100000", "DTEND;TZID=America/New_York:20261110T103000",
                   TESS, [(PR[0], PR[1], "ACCEPTED")]),
    ])
    write("bare-subject-names-a-window", now.isoformat(), ME1, cal, msgs,
          {"nudge": True, "event_uid": "marlowe-checklist@marlowecap.com", "recurrence_id": None, "message_ids": [a]})

# 20. The open thread's newest message went to the lawyer's paralegal; the lawyer is only copied.
RAY = ("Ray Kim", "rkim@lindqvistraman.com")  # Priya's paralegal
def c20():
    now = datetime(2026, 11, 12, 13, 50, tzinfo=EST)
    a = "<pl20.1@mail.lindqvistraman.com>"
    b = "<pl20.2@hartiganbuild.com>"
    msgs = [Msg(a, datetime(2026, 11, 11, 9, 0, tzinfo=EST), PR, [OWEN], "Harbor Point closeout documents",
                "Owen,\n\nRay will collect the closeout documents from you this week.\n\nPriya\n", cc=[RAY]),
            Msg(b, datetime(2026, 11, 12, 10, 30, tzinfo=EST), OWEN, [RAY], "RE: Harbor Point closeout documents",
                "Hi Ray,\n\nCould you send me the list of the lien waivers you still need?\n\nOwen\n", cc=[PR], reply_to=[a])]
    cal = ics(["America/New_York"], [
        base_event("hp-closeout@hartiganbuild.com", "Harbor Point - closeout call",
                   "DTSTART;TZID=America/New_York:20261112T140000", "DTEND;TZID=America/New_York:20261112T143000",
                   OWEN, [(PR[0], PR[1], "ACCEPTED"), (RAY[0], RAY[1], "ACCEPTED")]),
    ])
    write("open-thread-to-the-paralegal", now.isoformat(), ME1, cal, msgs, {"nudge": False})

# 21. Copied, but the newest message turns to the lawyer by name with a question: open.
def c21():
    now = datetime(2026, 11, 13, 10, 48, tzinfo=EST)
    a = "<pn21.1@mail.lindqvistraman.com>"
    b = "<pn21.2@hartiganbuild.com>"
    msgs = [Msg(a, datetime(2026, 11, 12, 9, 0, tzinfo=EST), PR, [OWEN], "Harbor Point retainage",
                "Owen,\n\nRay is collecting the pay applications.\n\nPriya\n", cc=[RAY]),
            Msg(b, datetime(2026, 11, 12, 16, 0, tzinfo=EST), OWEN, [RAY], "RE: Harbor Point retainage",
                "Ray, the pay applications are attached.\n\nPriya, can the owner release half the retainage at substantial completion?\n\nOwen\n",
                cc=[PR], reply_to=[a])]
    cal = ics(["America/New_York"], [
        base_event("hp-retainage@hartiganbuild.com", "Harbor Point - retainage",
                   "DTSTART;TZID=America/New_York:20261113T110000", "DTEND;TZID=America/New_York:20261113T113000",
                   OWEN, [(PR[0], PR[1], "ACCEPTED")]),
    ])
    write("copied-but-called-on-by-name", now.isoformat(), ME1, cal, msgs,
          {"nudge": True, "event_uid": "hp-retainage@hartiganbuild.com", "recurrence_id": None, "message_ids": [b]})

# 22. The attendee's newest message is an out-of-office answer to the lawyer's question: nothing waits on her.
def c22():
    now = datetime(2026, 11, 16, 8, 47, tzinfo=EST)
    a = "<oo22.1@mail.lindqvistraman.com>"
    b = "<oo22.2@marlowecap.com>"
    msgs = [Msg(a, datetime(2026, 11, 13, 17, 0, tzinfo=EST), PR, [TESS], "Marlowe guaranty - open points",
                "Tess,\n\nCan we close out the two open points on the guaranty on Monday's call?\n\nPriya\n"),
            Msg(b, datetime(2026, 11, 13, 17, 1, tzinfo=EST), TESS, [PR], "Automatic reply: Marlowe guaranty - open points",
                "I am out of the office until Monday. Please contact my assistant if this is urgent.\n", reply_to=[a],
                headers=["Auto-Submitted: auto-replied"])]
    cal = ics(["America/New_York"], [
        base_event("marlowe-guaranty@marlowecap.com", "Marlowe guaranty call",
                   "DTSTART;TZID=America/New_York:20261116T090000", "DTEND;TZID=America/New_York:20261116T093000",
                   TESS, [(PR[0], PR[1], "ACCEPTED")]),
    ])
    write("out-of-office-answer-is-not-open", now.isoformat(), ME1, cal, msgs, {"nudge": False})

for f in [c22, c21, c20, c19, c18, c17, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15, c16]:
    f()
