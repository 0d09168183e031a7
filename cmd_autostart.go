package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/platform"
)

const autostartUsage = `usage:
  spirit autostart on       start Spirit when you log in (this program, this data folder)
  spirit autostart off      no longer start Spirit when you log in
  spirit autostart status   say whether Spirit starts when you log in`

func runAutostart(_ context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "on" && args[0] != "off" && args[0] != "status") {
		fmt.Fprintln(stderr, autostartUsage)
		return errUsage
	}
	sub := args[0]
	fs, dataDir := flags("autostart "+sub, stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, autostartUsage) }
	if _, err := parse(fs, args[1:], 0); err != nil {
		return err
	}
	quiet(stderr)
	var a platform.Autostart
	var err error
	if sub == "status" {
		a, err = platform.AutostartStatus()
	} else {
		dir, derr := platform.DataDir(*dataDir)
		if derr != nil {
			return derr
		}
		a, err = app.SetAutostart(dir, sub == "on")
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, app.AutostartText(a))
	return nil
}
