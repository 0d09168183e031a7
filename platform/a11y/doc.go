// Package a11y reads the header of the message a mail client shows from
// the OS accessibility tree: exact text, where OCR of the reading pane
// has to guess at layout (Thunderbird 153 puts the sender's name and
// address on two lines, without "From:", and the subject below To/Cc).
// Callers fall back to OCR on ErrUnavailable and treat ErrNoHeader as
// "this window shows no message" (a list with nothing selected, a compose
// window, a dialog) without a search.
//
// # Linux: AT-SPI
//
// Open asks the session bus's org.a11y.Bus for the accessibility bus's
// address and connects to it. MessageHeader finds the window's
// application among the registry's children by the PID of its bus
// connection (else by a frame named as the window), the window's frame by
// its name (the X title; Gecko names frames after their windows), then
// every showing landmark in that frame with one Collection.GetMatches
// query (run inside the application, 1–3 ms), keeps those whose
// xml-roles is "banner", and reads each one's subtree, level by level
// with a level's calls pipelined, until one holds a sender. Everything
// is bounded: 64 applications, 32 frames, 16 landmarks, 200 objects
// to a depth of 12, and one second unless ctx says otherwise.
//
// What it relies on, found by walking Thunderbird 153's tree (reading
// pane in both layouts, message tab, compose window, save dialog):
//
//   - the header is an HTML <header> — role "landmark", xml-roles
//     "banner" — and only the shown one has the SHOWING state (hidden tabs
//     and the collapsed pane keep their trees but lose SHOWING; with
//     nothing selected the message browser leaves the tree);
//   - From, To and Cc are lists (role "list") named by the row's visible
//     label, one "list item" per mailbox; the item's children hold the
//     display name and address as texts (two lines for the sender) and a
//     "Not in the Address Book" push button, which is skipped; "Me"
//     carries the full mailbox as its accessible name;
//   - the subject row is named "Subject: <subject>" with the subject as
//     its text; the message document is titled with the subject too;
//   - the date is a <time> (xml-roles "time") whose "datetime" attribute
//     is the ISO time, so MessageHeader.Time is exact whatever the locale.
//
// No Thunderbird element id is used. Row labels are localized: the common
// languages' labels are listed, and with an unknown one the first list is
// taken as the sender. A compose window is its own frame with no banner;
// a toolkit without the Collection interface (Qt) yields ErrUnavailable.
//
// # Cost, and who turns accessibility on
//
// Measured on this project's 2-core machine with Thunderbird 153 under
// Xvfb (TestBenchA11yHeader, while other tests kept the load average at
// 8–18): one MessageHeader call with a message shown takes 15–17 ms at
// the median and 22–59 ms at p95. It is about 150 D-Bus calls, each
// costing Thunderbird's main thread about 40 µs: 8–10 ms of its CPU per
// call, and 5–8 ms of Spirit's (godbus decoding). With accessibility off
// the call fails with ErrUnavailable in 0.2–0.3 ms. Thunderbird follows
// org.a11y.Status.IsEnabled while it runs: set to true, its tree was on
// the bus within 70–95 ms, and its idle CPU and memory did not change
// measurably with a small mailbox (0.4–3 % and ±2.5 MB either way, the
// noise of the machine). Costs known but not measured here: Gecko and
// Chromium then keep an accessibility tree for every document and update
// it on each DOM change, and every GTK/Qt application started afterwards
// loads its AT-SPI bridge.
//
// Spirit should read the tree only when it is already on (a screen
// reader, or the desktop's accessibility setting) and not set
// org.a11y.Status itself by default: at-spi-bus-launcher stores
// IsEnabled in the desktop's settings (org.gnome.desktop.interface
// toolkit-accessibility; setting it on a session with dconf wrote
// ~/.config/dconf/user here), so it would change every application of the
// lawyer's session and outlive Spirit. If exact headers are wanted where
// it is off, make it an explicit, reversible setting that says so. A
// reader is cheap to keep: call MessageHeader when the pane may have
// changed, not on a timer faster than the change detector's.
//
// # Windows and macOS
//
// Not implemented yet: Open returns ErrUnsupported, which wraps
// ErrUnavailable. reader_windows.go and reader_darwin.go say what UI
// Automation and the AX API need; both would build the same Nodes and
// share HeaderFromTree.
package a11y
