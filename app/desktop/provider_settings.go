package desktop

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/app"
)

var providerChoices = []string{app.ProviderName(setup.None), app.ProviderName(setup.Anthropic), app.ProviderName(setup.OpenAI)}

func kindOfChoice(c string) string {
	switch c {
	case providerChoices[1]:
		return setup.Anthropic
	case providerChoices[2]:
		return setup.OpenAI
	}
	return setup.None
}

func choiceOfKind(k string) string {
	switch k {
	case setup.Anthropic:
		return providerChoices[1]
	case setup.OpenAI:
		return providerChoices[2]
	}
	return providerChoices[0]
}

// providerPage is Settings' "Model provider" page: service, models, key, Test.
func newProviderPage(g *gui) fyne.CanvasObject {
	ctx := g.ctx
	s, err := g.core.ProviderSettings(ctx)
	if err != nil {
		g.log.Warn("model provider settings unreadable", "err", err)
	}
	kind := widget.NewSelect(providerChoices, nil)
	kind.SetSelected(choiceOfKind(s.Kind))
	base := widget.NewEntry()
	base.SetPlaceHolder("empty for the vendor's own; e.g. http://127.0.0.1:11434/v1 for Ollama")
	base.SetText(s.BaseURL)
	triage, analyst := widget.NewEntry(), widget.NewEntry()
	triage.SetText(s.Roles.Triage)
	analyst.SetText(s.Roles.Analyst)
	triage.SetPlaceHolder("a fast model, for sorting what comes in")
	analyst.SetPlaceHolder("a stronger model, for reading threads")
	// Choosing a service fills in its recommended models, unless the
	// lawyer typed others.
	shown := s.Kind
	kind.OnChanged = func(c string) {
		old, rec := setup.Recommended(shown), setup.Recommended(kindOfChoice(c))
		if triage.Text == "" || triage.Text == old.Triage {
			triage.SetText(rec.Triage)
		}
		if analyst.Text == "" || analyst.Text == old.Analyst {
			analyst.SetText(rec.Analyst)
		}
		shown = kindOfChoice(c)
	}
	key := widget.NewPasswordEntry()
	key.SetPlaceHolder("leave empty to keep the stored key")
	status := widget.NewLabel("")
	status.Wrapping = fyne.TextWrapWord

	settings := func() setup.Settings {
		out := setup.Settings{Kind: kindOfChoice(kind.Selected), BaseURL: base.Text}
		out.Roles.Triage, out.Roles.Analyst = triage.Text, analyst.Text
		return out
	}
	// run does f off the main thread and shows how it went.
	run := func(busy string, f func(ctx context.Context) (string, error)) {
		status.SetText(busy)
		go func() {
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			msg, err := f(ctx)
			g.do(func() {
				if err != nil {
					status.SetText("Problem: " + err.Error())
				} else {
					status.SetText(msg)
				}
			})
		}()
	}
	save := widget.NewButton("Save", func() {
		s, k := settings(), key.Text
		key.SetText("")
		run("Saving…", func(ctx context.Context) (string, error) {
			if err := g.core.SaveProviderSettings(ctx, s, k); err != nil {
				return "", err
			}
			return "Saved.", nil
		})
	})
	save.Importance = widget.HighImportance
	test := widget.NewButton("Test", func() {
		s, k := settings(), key.Text
		run("Asking the provider…", func(ctx context.Context) (string, error) {
			return g.core.TestProvider(ctx, s, k)
		})
	})
	note := widget.NewLabel("Optional. With a provider, Spirit may send the screenshot of an email it could not " +
		"read and the text of that one thread to it — nothing else leaves this computer. Without one, Spirit " +
		"decides with its on-device rules only.")
	note.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(
		widget.NewFormItem("Service", kind),
		widget.NewFormItem("Base URL", base),
		widget.NewFormItem("Triage model", triage),
		widget.NewFormItem("Analyst model", analyst),
		widget.NewFormItem("API key", key),
	)
	return container.NewVBox(note, form, container.NewHBox(save, test), status)
}
