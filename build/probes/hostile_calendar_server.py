#!/usr/bin/env python3
"""A hostile calendar server on loopback, for build/probes/calendar.sh.

  hostile_calendar_server.py PORT MODE [SECRET]

MODE is what every request gets:
  stream    a CalDAV 207 multistatus that never ends
  propfind  a PROPFIND answer with a display name of 1 GiB
  drip      an iCalendar body, one byte every 2 s
  redirect  a 307 to the same host on PORT+1, where 'catch' listens
  catch     records any Authorization header it is sent (to PORT.auth)
  echo403   a 403 whose status line and DAV error echo the credentials
Only for the repros: never shipped, never run by the tests.
"""
import sys, time, base64
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, mode = int(sys.argv[1]), sys.argv[2]


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)

    def handle_any(self):
        self.body()
        try:
            getattr(self, "do_" + mode)()
        except (BrokenPipeError, ConnectionResetError):
            pass

    do_GET = do_PROPFIND = do_REPORT = do_OPTIONS = handle_any

    def chunked(self, ctype, status=207):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, b):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(b), b))

    def do_stream(self):
        self.chunked('application/xml; charset="utf-8"')
        self.chunk(b'<?xml version="1.0"?><d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">')
        resp = (b"<d:response><d:href>/cal/x.ics</d:href><d:propstat><d:prop><c:calendar-data>"
                b"BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nDTSTART:20261202T100000Z\nSUMMARY:" + b"A" * 4000 +
                b"\nEND:VEVENT\nEND:VCALENDAR\n</c:calendar-data></d:prop></d:propstat></d:response>")
        while True:
            self.chunk(resp * 16)

    def do_propfind(self):
        self.chunked('application/xml; charset="utf-8"')
        self.chunk(b'<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/cal/</d:href>'
                   b'<d:propstat><d:prop><d:displayname>')
        for _ in range(1 << 14):  # 1 GiB in 64 KiB pieces
            self.chunk(b"N" * 65536)
        self.chunk(b"</d:displayname></d:prop></d:propstat></d:response></d:multistatus>")
        self.chunk(b"")

    def do_drip(self):
        ics = (b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:d\r\nDTSTART:20261202T100000Z\r\n"
               b"SUMMARY:drip\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n") * 1000
        self.send_response(200)
        self.send_header("Content-Type", "text/calendar")
        self.send_header("Content-Length", str(len(ics)))
        self.end_headers()
        for i in range(len(ics)):
            self.wfile.write(ics[i:i + 1])
            self.wfile.flush()
            time.sleep(2)

    def do_redirect(self):
        self.send_response(307)
        self.send_header("Location", "http://127.0.0.1:%d%s" % (port + 1, self.path))
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_catch(self):
        auth = self.headers.get("Authorization")
        if auth:
            with open("%d.auth" % port, "a") as f:
                f.write(auth + "\n")
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="x"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_echo403(self):
        auth = self.headers.get("Authorization") or ""
        user, pw = "", ""
        if auth.startswith("Basic "):
            user, _, pw = base64.b64decode(auth[6:]).decode().partition(":")
        echo = "%s may not read this with %s (you sent %s)" % (user, pw, auth)
        body = ('<?xml version="1.0"?><d:error xmlns:d="DAV:"><d:responsedescription>%s'
                '</d:responsedescription></d:error>' % echo).encode()
        self.send_response(403, "Forbidden " + echo)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
