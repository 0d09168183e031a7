package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/intent"
	"github.com/spirit-app/spirit/voice/listen"
	"github.com/spirit-app/spirit/voice/model"
	"github.com/spirit-app/spirit/voice/whisper"
)

// runListen runs the same hearing pipeline as Spirit on a WAV file: VAD,
// whisper on each utterance, and the command grammar. Nothing is stored.
func runListen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dataDir := flags("listen", stderr)
	file := fs.String("file", "", "16-bit PCM WAV file to listen to (required)")
	modelPath := fs.String("model", "", "speech model file (default: the best installed model)")
	threads := fs.Int("threads", 0, "whisper threads (default: min(4, cores))")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if *file == "" {
		fmt.Fprintln(stderr, "spirit: listen needs --file speech.wav")
		return errUsage
	}
	quiet(stderr)
	path := *modelPath
	if path == "" {
		dir, err := platform.DataDir(*dataDir)
		if err != nil {
			return err
		}
		if path, err = model.Find(dir, ""); err != nil {
			return err
		}
	}
	tr, err := whisper.Load(ctx, path, whisper.Options{Threads: *threads})
	if err != nil {
		return err
	}
	defer tr.Close()

	start := time.Now()
	var heard int
	l := &listen.Listener{
		Source:      &audio.WAVSource{Path: *file},
		Transcriber: whisper.Text{T: tr},
		OnHeard: func(h listen.Heard) {
			heard++
			in := intent.Parse(h.Text, h.At)
			fmt.Fprintf(stdout, "[%s – %s] %s\n    → %s", clock(h.Start), clock(h.End), h.Text, in.Kind)
			if in.Task != "" {
				fmt.Fprintf(stdout, " %q", in.Task)
			}
			if in.Due != nil {
				fmt.Fprintf(stdout, " due %s", in.Due.Format(time.RFC3339))
			}
			fmt.Fprintln(stdout)
		},
	}
	if err := l.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d utterances in %v\n", heard, time.Since(start).Round(time.Millisecond))
	return nil
}

func clock(d time.Duration) string {
	return fmt.Sprintf("%02d:%05.2f", int(d.Minutes()), d.Seconds()-60*float64(int(d.Minutes())))
}
