"""Writes the glance cases about whom a message is to and who sent it
(issue 29): python3 testdata/gen_mail_cases.py testdata (from
agents/glance), then check them with
python3 ../../../shared/cases/check_glance.py testdata.

Each case says in its comment which rule it is for. The expectations follow
the glance/ rules of the shared cases README, not Spirit's output:

- to the lawyer means among the To addressees, or in Cc and called on by
  name (a greeting or a line opening with their name); copied, blind-copied
  or mentioned ("copying Nadia for the file") is not;
- automated mail (RFC 3834 Auto-Submitted, Precedence, List-*, out-of-office
  replies, robot and court e-filing senders, "do not reply" footers) is a
  newsletter, whatever its text asks.
The ids are named by class: to-, cc-, bcc-, auto-, human-."""
import json, os, sys
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "mail", "mailtest"))
from mboxgen import Msg, addr, mbox  # noqa: E402  (the shared mbox writer)

ROOT = sys.argv[1]

ET = timezone(timedelta(hours=-5))
CT = timezone(timedelta(hours=-6))

NADIA = ("Nadia Brennan", "nbrennan@brennanwolfe.com")
ME = {"name": "Nadia Brennan", "addresses": ["nbrennan@brennanwolfe.com", "nadia@brennanwolfe.com"]}
GIL = ("Gil Ferreira", "gferreira@brennanwolfe.com")       # her associate
ROSA = ("Rosa Lind", "rlind@brennanwolfe.com")             # her paralegal
HAL = ("Hal Whitcombe", "hal@whitcombeproperties.com")     # client
LEAH = ("Leah Sorensen", "lsorensen@sorensenkeel.com")     # opposing counsel
TOMAS = ("Tomás Reyes", "treyes@reyesescrow.com")          # escrow officer


def write(cid, now, app, title, msgs, expect, me=ME):
    d = os.path.join(ROOT, "glance", cid)
    os.makedirs(d, exist_ok=True)
    case = {"id": cid, "now": now.isoformat(), "me": me, "app": app, "title": title, "expect": expect}
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump(case, f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(d, "mailbox.mbox"), "w") as f:
        f.write(mbox(msgs))


def outlook(subject):
    return ("Microsoft Outlook", subject + " - Message (HTML)")


def thunderbird(subject):
    return ("Thunderbird", subject + " - Mozilla Thunderbird")


NEEDS = lambda mid: {"surface": True, "message_id": mid, "reason": "needs_reply"}
FYI = {"surface": False, "reason": "fyi"}
BULK = {"surface": False, "reason": "newsletter"}


def opener(prefix, when, subject, to, cc=()):
    """The lawyer's first message of a thread, which the others answer."""
    mid = f"<{prefix}.1@mail.brennanwolfe.com>"
    return mid, Msg(mid, when, NADIA, to, subject,
                    f"{to[0][0].split()[0]},\n\nAttached is our draft. Let me know what you think.\n\nNadia\n", cc=cc)


# cc-: the lawyer only in Cc.

def cc_greeting_to_colleague():
    # The client answers her associate, greeting him; she is copied.
    s = "Estoppel certificates – 410 Dunmore Ave"
    a, m1 = opener("ccg", datetime(2026, 11, 30, 9, 0, tzinfo=ET), s, [HAL], cc=[GIL])
    b = "<ccg.2@whitcombeproperties.com>"
    m2 = Msg(b, datetime(2026, 11, 30, 14, 10, tzinfo=ET), HAL, [GIL], "RE: " + s,
             "Hi Gil,\n\nThree tenants have signed. Can you chase the other two and send me the status by Thursday?\n\nThanks,\nHal\n",
             cc=[NADIA], reply_to=[a])
    app, title = outlook("RE: " + s)
    write("cc-greeting-to-colleague", datetime(2026, 11, 30, 14, 30, tzinfo=ET), app, title, [m1, m2], FYI)


def cc_for_the_file():
    # Opposing counsel copies the lawyer "for the file"; the question is the escrow officer's.
    s = "Wire instructions – Kestrel Yard closing"
    b = "<ccf.1@sorensenkeel.com>"
    m = Msg(b, datetime(2026, 12, 1, 10, 5, tzinfo=ET), LEAH, [TOMAS],
            s, "Tomás,\n\nCopying Nadia for the file only. Could you confirm the seller's wire went out this morning?\n\nLeah\n",
            cc=[NADIA])
    app, title = thunderbird(s)
    write("cc-copied-for-the-file", datetime(2026, 12, 1, 10, 20, tzinfo=ET), app, title, [m], FYI)


def cc_mentioned_not_called():
    # Her name is in the text, but as the subject of a sentence, not whom it calls on.
    s = "Guaranty – Whitcombe Dunmore LLC"
    b = "<ccm.1@whitcombeproperties.com>"
    m = Msg(b, datetime(2026, 12, 1, 16, 40, tzinfo=ET), HAL, [GIL], s,
            "Gil –\n\nNadia mentioned the lender wants a springing guaranty. Is that still their position?\n\nHal\n",
            cc=[NADIA])
    app, title = outlook(s)
    write("cc-mentioned-not-called-on", datetime(2026, 12, 1, 17, 0, tzinfo=ET), app, title, [m], FYI)


def cc_called_on_later():
    # In Cc, but a later paragraph turns to her by name with a question: it is to her.
    s = "Dunmore Ave – rent roll"
    b = "<ccl.1@whitcombeproperties.com>"
    m = Msg(b, datetime(2026, 12, 2, 11, 15, tzinfo=ET), HAL, [GIL], s,
            "Gil, the updated rent roll is attached.\n\nNadia, could you tell me whether the two month-to-month tenants need estoppels at all?\n\nHal\n",
            cc=[NADIA])
    app, title = outlook(s)
    write("cc-called-on-by-name", datetime(2026, 12, 2, 11, 30, tzinfo=ET), app, title, [m], NEEDS(b))


def cc_greeted_with_another():
    # In Cc and greeted together with the one in To: both are asked.
    s = "Kestrel Yard – closing date"
    b = "<ccb.1@reyesescrow.com>"
    m = Msg(b, datetime(2026, 12, 2, 8, 50, tzinfo=CT), TOMAS, [LEAH], s,
            "Leah and Nadia,\n\nThe lender's funding window moved. Can you both confirm December 15 still works for your clients?\n\nTomás\n",
            cc=[NADIA])
    app, title = thunderbird(s)
    write("cc-greeted-with-another", datetime(2026, 12, 2, 9, 5, tzinfo=CT), app, title, [m], NEEDS(b))


# to-: the lawyer among the To addressees.

def to_greeting_names_another():
    # She is in To with her associate, but the greeting turns to him alone.
    s = "Signature pages – Dunmore refinance"
    b = "<tgn.1@whitcombeproperties.com>"
    m = Msg(b, datetime(2026, 12, 2, 15, 0, tzinfo=ET), HAL, [NADIA, GIL], s,
            "Hi Gil,\n\nPlease send me the signature pages for the loan documents today so I can sign tonight.\n\nHal\n")
    app, title = outlook(s)
    write("to-greeting-names-a-colleague", datetime(2026, 12, 2, 15, 20, tzinfo=ET), app, title, [m], FYI)


def to_with_others_asked():
    # In To with others; the message asks the group, naming no one.
    s = "Kestrel Yard – title objections"
    b = "<two.1@reyesescrow.com>"
    m = Msg(b, datetime(2026, 12, 2, 13, 0, tzinfo=CT), TOMAS, [NADIA, LEAH], s,
            "All,\n\nThe title company needs the objection letter by Friday. Who is sending it?\n\nTomás\n")
    app, title = thunderbird(s)
    write("to-with-others-group-asked", datetime(2026, 12, 2, 13, 30, tzinfo=CT), app, title, [m], NEEDS(b))


# bcc-: the lawyer neither in To nor in Cc.

def bcc_client_forward():
    # The client blind-copies her on his own question to the other side.
    s = "Dunmore Ave – parking easement"
    b = "<bcc.1@whitcombeproperties.com>"
    m = Msg(b, datetime(2026, 12, 1, 9, 30, tzinfo=ET), HAL, [LEAH], s,
            "Leah,\n\nCan your client agree to keep the six spaces on the north lot through the lease term?\n\nHal\n")
    app, title = outlook(s)
    write("bcc-on-a-question-to-the-other-side", datetime(2026, 12, 1, 9, 45, tzinfo=ET), app, title, [m], FYI)


# auto-: automated mail, whatever its words ask.

def auto_court_efiling_by_bcc():
    # A court's e-filing notice, delivered by Bcc; To is the court's own robot address.
    robot = ("", "efile-notices@ecf.txwd.uscourts.example")
    s = "Activity in Case 1:26-cv-00981 Whitcombe Properties v. Keel Holdings Motion to Compel"
    b = "<8812740@txwd.uscourts.example>"
    m = Msg(b, datetime(2026, 12, 2, 16, 2, tzinfo=CT), ("cmecf@txwd.uscourts.example", "cmecf@txwd.uscourts.example"),
            [robot], s,
            "This is an automatic e-mail message generated by the CM/ECF system. Please DO NOT RESPOND to this e-mail because the mail box is unattended.\n\n"
            "U.S. District Court\nWestern District of Texas\n\nNotice of Electronic Filing\n\n"
            "The following transaction was entered on 12/2/2026 at 4:01 PM CST and filed on 12/2/2026.\n"
            "Document Number: 41\n\nDocket Text:\nMOTION to Compel Production of Documents by Keel Holdings LLC. Responses due by 12/16/2026.\n")
    app, title = outlook(s)
    write("auto-court-efiling-notice-by-bcc", datetime(2026, 12, 2, 16, 10, tzinfo=CT), app, title, [m], BULK)


def auto_out_of_office():
    # Opposing counsel's out-of-office answer to the lawyer's own question (RFC 3834 header).
    s = "Kestrel Yard – estoppel comments"
    a, m1 = opener("ooo", datetime(2026, 12, 2, 10, 0, tzinfo=ET), s, [LEAH])
    b = "<ooo.2@sorensenkeel.com>"
    m2 = Msg(b, datetime(2026, 12, 2, 10, 0, 30, tzinfo=ET), LEAH, [NADIA], "Automatic reply: " + s,
             "I am out of the office through December 7 with limited access to email. For anything urgent, please call my assistant at 512-555-0143.\n\nLeah Sorensen\n",
             reply_to=[a], headers=["Auto-Submitted: auto-replied", "X-Auto-Response-Suppress: All"])
    app, title = outlook("Automatic reply: " + s)
    write("auto-out-of-office-reply", datetime(2026, 12, 2, 10, 5, tzinfo=ET), app, title, [m1, m2], BULK)


def auto_vacation_no_rfc_header():
    # An out-of-office answer that carries only the X-Autoreply family of headers.
    s = "Dunmore Ave – insurance certificate"
    a, m1 = opener("vac", datetime(2026, 12, 1, 15, 0, tzinfo=ET), s, [TOMAS])
    b = "<vac.2@reyesescrow.com>"
    m2 = Msg(b, datetime(2026, 12, 1, 15, 1, tzinfo=ET), TOMAS, [NADIA], "Out of Office: " + s,
             "Thank you for your message. I am travelling and will reply when I return on Monday. Could you resend anything time-sensitive to escrow@reyesescrow.com?\n",
             reply_to=[a], headers=["X-Autoreply: yes"])
    app, title = thunderbird("Out of Office: " + s)
    write("auto-vacation-reply-x-autoreply", datetime(2026, 12, 1, 15, 10, tzinfo=ET), app, title, [m1, m2], BULK)


def auto_portal_footer():
    # A document portal's notice, to her, with a question-shaped line and a "do not reply" footer.
    s = "New document shared with you: Dunmore Ave SNDA (lender form)"
    b = "<p-55120@notify.lexvault.example>"
    m = Msg(b, datetime(2026, 12, 2, 12, 0, tzinfo=ET), ("LexVault", "portal@lexvault.example"), [NADIA], s,
            "Hal Whitcombe shared a document with you.\n\nCan you review it? Open LexVault to view, comment or download.\n\n"
            "Please do not reply to this message. Replies to this address are not monitored.\n")
    app, title = outlook(s)
    write("auto-portal-do-not-reply-footer", datetime(2026, 12, 2, 12, 20, tzinfo=ET), app, title, [m], BULK)


def auto_listserv():
    # A bar association list: a member's question to the list, with List-Id and List-Post.
    s = "[RE-Section] Anyone seen lenders push back on SNDA non-disturbance carve-outs?"
    b = "<ls.1@kellerlaw.example>"
    m = Msg(b, datetime(2026, 12, 2, 9, 15, tzinfo=CT), ("Dev Keller", "dev@kellerlaw.example"),
            [("Real Estate Section", "re-section@lists.statebar.example")], s,
            "Has anyone had a lender refuse to carve casualty and condemnation out of the SNDA? Would you share your language?\n\nDev\n",
            headers=["List-Id: Real Estate Section <re-section.lists.statebar.example>",
                     "List-Post: <mailto:re-section@lists.statebar.example>",
                     "Precedence: list"])
    app, title = thunderbird(s)
    write("auto-bar-listserv-question", datetime(2026, 12, 2, 9, 40, tzinfo=CT), app, title, [m], BULK)


def auto_noreply_sender():
    # A robot sender by its address alone: no headers, no footer.
    s = "Your wire confirmation – Kestrel Yard escrow 26-1184"
    b = "<wc.1@mail.firstriverbank.example>"
    m = Msg(b, datetime(2026, 12, 2, 14, 0, tzinfo=CT), ("First River Bank", "do_not_reply@firstriverbank.example"), [NADIA], s,
            "Your outgoing wire of $1,250,000.00 was sent. Please review the details below and call us if anything is wrong.\n")
    app, title = outlook(s)
    write("auto-no-reply-sender-address", datetime(2026, 12, 2, 14, 15, tzinfo=CT), app, title, [m], BULK)


# human-: people's mail that only looks like the automated kind.

def human_do_not_respond_to_them():
    # A client's own "do not respond" is an instruction about someone else, not a robot's footer.
    s = "Keel demand letter"
    b = "<hdr.1@whitcombeproperties.com>"
    m = Msg(b, datetime(2026, 12, 2, 17, 5, tzinfo=ET), HAL, [NADIA], s,
            "Nadia,\n\nPlease do not respond to Keel's lawyer until we have talked. Can you call me tomorrow morning?\n\nHal\n")
    app, title = outlook(s)
    write("human-do-not-respond-to-them", datetime(2026, 12, 2, 17, 20, tzinfo=ET), app, title, [m], NEEDS(b))


def human_back_from_leave():
    # A person writing about their own time out of the office, with a question: not an auto-reply.
    s = "Back Monday – Dunmore closing checklist"
    b = "<hbl.1@reyesescrow.com>"
    m = Msg(b, datetime(2026, 12, 2, 18, 0, tzinfo=ET), TOMAS, [NADIA], s,
            "Nadia,\n\nI was out of the office last week. Could you send me the current closing checklist so I can catch up?\n\nTomás\n")
    app, title = thunderbird(s)
    write("human-back-from-leave-asks", datetime(2026, 12, 2, 18, 15, tzinfo=ET), app, title, [m], NEEDS(b))


def human_forwards_court_notice():
    # Her associate forwards the court's notice with his own question: a person writing.
    s = "Fwd: Activity in Case 1:26-cv-00981 Whitcombe Properties v. Keel Holdings Motion to Compel"
    b = "<hfc.1@mail.brennanwolfe.com>"
    m = Msg(b, datetime(2026, 12, 2, 16, 30, tzinfo=CT), GIL, [NADIA], s,
            "Nadia,\n\nKeel moved to compel this afternoon. Can we find 20 minutes tomorrow to plan the response?\n\nGil\n\n"
            "---------- Forwarded message ---------\nFrom: cmecf@txwd.uscourts.example\nDate: Wed, Dec 2, 2026 at 4:02 PM\n"
            "Subject: Activity in Case 1:26-cv-00981 Whitcombe Properties v. Keel Holdings Motion to Compel\n\n"
            "This is an automatic e-mail message generated by the CM/ECF system. Please DO NOT RESPOND to this e-mail because the mail box is unattended.\n\n"
            "Notice of Electronic Filing\n")
    app, title = outlook(s)
    write("human-forwards-a-court-notice", datetime(2026, 12, 2, 16, 45, tzinfo=CT), app, title, [m], NEEDS(b))


# ocr-: the reading pane read off the screen, the sender's address
# unreadable: its "@" and dots lost, its letters run together. The name
# and the subject still find one thread; with no such thread, or two the
# name cannot tell apart, the glance is silent.

def pane_text(sender_line, subject, body):
    return ("Get Messages   Write   Chat   Address Book   Tag   Quick Filter\n"
            "Reply   Reply All   Forward   Archive   Junk   Delete   More\n"
            f"{sender_line}\nTo: Nadia Brennan\nSubject: {subject}\n12/2/2026, 3:40 PM\n{body}\n")


def ocr_case(cid, sender_line, subject, msgs, expect):
    c_now = datetime(2026, 12, 2, 15, 50, tzinfo=ET)
    body = msgs[-1].body.strip().split("\n")[0] if msgs else "Nadia,"
    d = os.path.join(ROOT, "glance", cid)
    write(cid, c_now, "Thunderbird", "Inbox - nbrennan@brennanwolfe.com - Mozilla Thunderbird", msgs, expect)
    path = os.path.join(d, "case.json")
    case = json.load(open(path))
    case["screen_text"] = pane_text(sender_line, subject, body)
    case.pop("expect")
    case["expect"] = expect
    with open(path, "w") as f:
        json.dump(case, f, indent=2, ensure_ascii=False)
        f.write("\n")


def ocr_garbled_address():
    s = "Tenant estoppel – Suite 400"
    b = "<oga.1@whitcombeproperties.com>"
    m = Msg(b, datetime(2026, 12, 2, 15, 40, tzinfo=ET), HAL, [NADIA], s,
            "Nadia,\n\nCan you confirm the estoppel form is final so I can send it to the tenant today?\n\nHal\n")
    ocr_case("ocr-sender-address-run-together", "From: Hal Whitcombe halwhitcombepropertiescorn", s, [m], NEEDS(b))


def ocr_garbled_address_in_brackets():
    s = "Escrow holdback amount"
    b = "<ogb.1@reyesescrow.com>"
    m = Msg(b, datetime(2026, 12, 2, 15, 40, tzinfo=ET), TOMAS, [NADIA], s,
            "Nadia,\n\nCould you tell me today whether the holdback stays at $25,000?\n\nTomás\n")
    ocr_case("ocr-sender-address-lost-in-brackets", "From: Tomás Reyes <treyesreyesescrowcom>", s, [m], NEEDS(b))


def ocr_garbled_address_no_thread():
    # Nothing from this sender with this subject in the mailbox: silent.
    s = "Signature pages for the Dunmore lease"
    other = Msg("<ogn.1@sorensenkeel.com>", datetime(2026, 12, 1, 10, 0, tzinfo=ET), LEAH, [NADIA], "Dunmore lease – comments",
                "Nadia,\n\nOur comments are attached.\n\nLeah\n")
    ocr_case("ocr-sender-address-garbled-no-thread", "From: Hal Whitcombe halwhitcombepropertiescom", s, [other],
             {"surface": False, "reason": "no_match"})


def ocr_garbled_address_two_threads():
    # Two threads with the subject, from two people the garble cannot tell apart.
    s = "Closing checklist"
    m1 = Msg("<ogt.1@brennanwolfe.com>", datetime(2026, 12, 2, 11, 0, tzinfo=ET), GIL, [NADIA], s,
             "Nadia,\n\nCan you look at items 4 and 9 before the call?\n\nGil\n")
    m2 = Msg("<ogt.2@brennanwolfe.com>", datetime(2026, 12, 2, 15, 40, tzinfo=ET), ROSA, [NADIA], s,
             "Nadia,\n\nCould you sign off on the checklist so I can circulate it?\n\nRosa\n")
    ocr_case("ocr-sender-unreadable-two-threads", "From: xq brennanwolfecom", s, [m1, m2],
             {"surface": False, "reason": "ambiguous"})


for f in [human_forwards_court_notice, cc_greeting_to_colleague, cc_for_the_file, cc_mentioned_not_called, cc_called_on_later,
          cc_greeted_with_another, to_greeting_names_another, to_with_others_asked, bcc_client_forward,
          auto_court_efiling_by_bcc, auto_out_of_office, auto_vacation_no_rfc_header, auto_portal_footer,
          auto_listserv, auto_noreply_sender, human_do_not_respond_to_them, human_back_from_leave,
          ocr_garbled_address, ocr_garbled_address_in_brackets, ocr_garbled_address_no_thread, ocr_garbled_address_two_threads]:
    f()
