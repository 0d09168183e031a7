// Package widgets holds Spirit's own Fyne widgets and theme: the orb, the
// nudge bubble and the quick panel. It knows nothing about where answers
// go; the desktop (app/desktop) wires it to the rest of Spirit.
package widgets

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Palette is one variant of Spirit's colours. Spirit paints its own surfaces,
// so text contrast never depends on how the desktop's theme is set.
type Palette struct {
	Background, Surface, Foreground, Muted, Primary, OnPrimary,
	Input, InputBorder, Hover, Pressed, Selection, Separator,
	Error, Success, Warning, Glow color.NRGBA
}

var (
	// darkPalette: deep ink surfaces with a warm, quiet accent.
	darkPalette = Palette{
		Background:  color.NRGBA{0x17, 0x1a, 0x22, 0xff},
		Surface:     color.NRGBA{0x22, 0x26, 0x31, 0xff},
		Foreground:  color.NRGBA{0xee, 0xf0, 0xf4, 0xff},
		Muted:       color.NRGBA{0xa4, 0xab, 0xba, 0xff},
		Primary:     color.NRGBA{0x8f, 0xb4, 0xff, 0xff},
		OnPrimary:   color.NRGBA{0x10, 0x14, 0x1f, 0xff},
		Input:       color.NRGBA{0x2b, 0x30, 0x3d, 0xff},
		InputBorder: color.NRGBA{0x4a, 0x52, 0x66, 0xff},
		Hover:       color.NRGBA{0xff, 0xff, 0xff, 0x14},
		Pressed:     color.NRGBA{0xff, 0xff, 0xff, 0x26},
		Selection:   color.NRGBA{0x8f, 0xb4, 0xff, 0x55},
		Separator:   color.NRGBA{0x3a, 0x40, 0x4f, 0xff},
		Error:       color.NRGBA{0xff, 0x8a, 0x80, 0xff},
		Success:     color.NRGBA{0x7d, 0xd8, 0xa4, 0xff},
		Warning:     color.NRGBA{0xf5, 0xc4, 0x6b, 0xff},
		Glow:        color.NRGBA{0x9b, 0xc1, 0xff, 0xff},
	}
	// lightPalette: paper-white surfaces with ink text.
	lightPalette = Palette{
		Background:  color.NRGBA{0xf7, 0xf7, 0xf9, 0xff},
		Surface:     color.NRGBA{0xff, 0xff, 0xff, 0xff},
		Foreground:  color.NRGBA{0x1a, 0x1d, 0x26, 0xff},
		Muted:       color.NRGBA{0x55, 0x5c, 0x6b, 0xff},
		Primary:     color.NRGBA{0x2f, 0x5b, 0xd3, 0xff},
		OnPrimary:   color.NRGBA{0xff, 0xff, 0xff, 0xff},
		Input:       color.NRGBA{0xff, 0xff, 0xff, 0xff},
		InputBorder: color.NRGBA{0xb8, 0xbe, 0xcc, 0xff},
		Hover:       color.NRGBA{0x00, 0x00, 0x00, 0x0f},
		Pressed:     color.NRGBA{0x00, 0x00, 0x00, 0x1f},
		Selection:   color.NRGBA{0x2f, 0x5b, 0xd3, 0x40},
		Separator:   color.NRGBA{0xdd, 0xe0, 0xe7, 0xff},
		Error:       color.NRGBA{0xb3, 0x26, 0x1e, 0xff},
		Success:     color.NRGBA{0x1e, 0x7a, 0x46, 0xff},
		Warning:     color.NRGBA{0x8a, 0x5a, 0x00, 0xff},
		Glow:        color.NRGBA{0x4a, 0x78, 0xf0, 0xff},
	}
)

// PaletteFor returns Spirit's palette for a theme variant.
func PaletteFor(v fyne.ThemeVariant) Palette {
	if v == theme.VariantLight {
		return lightPalette
	}
	return darkPalette
}

// Theme is Spirit's Fyne theme: its own colours for both variants, the
// default fonts, icons and a slightly tighter size scale for small windows.
type Theme struct{}

var _ fyne.Theme = Theme{}

// Color maps Fyne's colour names onto Spirit's palette.
func (Theme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	p := PaletteFor(v)
	switch n {
	case theme.ColorNameBackground, theme.ColorNameMenuBackground, theme.ColorNameOverlayBackground:
		return p.Surface
	case theme.ColorNameHeaderBackground:
		return p.Background
	case theme.ColorNameForeground:
		return p.Foreground
	case theme.ColorNamePlaceHolder, theme.ColorNameDisabled:
		return p.Muted
	case theme.ColorNamePrimary, theme.ColorNameFocus, theme.ColorNameHyperlink:
		return p.Primary
	case theme.ColorNameForegroundOnPrimary:
		return p.OnPrimary
	case theme.ColorNameButton:
		return p.Input
	case theme.ColorNameDisabledButton:
		return p.Background
	case theme.ColorNameInputBackground:
		return p.Input
	case theme.ColorNameInputBorder:
		return p.InputBorder
	case theme.ColorNameHover:
		return p.Hover
	case theme.ColorNamePressed:
		return p.Pressed
	case theme.ColorNameSelection:
		return p.Selection
	case theme.ColorNameSeparator, theme.ColorNameScrollBar:
		return p.Separator
	case theme.ColorNameError:
		return p.Error
	case theme.ColorNameSuccess:
		return p.Success
	case theme.ColorNameWarning:
		return p.Warning
	case theme.ColorNameShadow:
		return color.NRGBA{0, 0, 0, 0x55}
	}
	return theme.DefaultTheme().Color(n, v)
}

// Font uses Fyne's bundled fonts: they render the same on every system.
func (Theme) Font(s fyne.TextStyle) fyne.Resource { return theme.DefaultTheme().Font(s) }

// Icon uses Fyne's icons, which recolour themselves from Color.
func (Theme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }

// Size tightens padding a little: Spirit's windows are small and sit at the edge.
func (Theme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNamePadding:
		return 5
	case theme.SizeNameInnerPadding:
		return 7
	case theme.SizeNameInputRadius, theme.SizeNameSelectionRadius:
		return 6
	case theme.SizeNameText:
		return 13
	}
	return theme.DefaultTheme().Size(n)
}
