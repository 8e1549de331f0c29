//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// screenshotsEnv names a directory TestPresentationModeReadsFromTheBackOfARoom
// writes each of its screenshots to.
const screenshotsEnv = "ZEROKUBE_UI_SCREENSHOTS"

// readableFromTheBack is a script that returns, as sentences, the shown
// text of the page a room cannot read: under 20 px, or with a contrast
// under 7:1 (WCAG's enhanced level) against the background it is drawn on.
const readableFromTheBack = `(() => {
  const out = [];
  const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    const [r, g, b] = rgb(c);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const b = getComputedStyle(e).backgroundColor;
      if (b && b !== "transparent" && !/^rgba\(.*, 0\)$/.test(b)) return b;
    }
    return "rgb(255, 255, 255)";
  };
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.textContent.trim();
    const el = n.parentElement;
    if (!text || el.closest("script")) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    if (range.getClientRects().length === 0) continue; // not shown
    const cs = getComputedStyle(el);
    const size = parseFloat(cs.fontSize);
    if (size < 20) out.push(JSON.stringify(text.slice(0, 30)) + " is " + size + " px");
    const a = lum(cs.color), b = lum(background(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (ratio < 7) out.push(JSON.stringify(text.slice(0, 30)) + " has a contrast of " + ratio.toFixed(1) + ":1");
  }
  return out;
})()`

// TestPresentationModeReadsFromTheBackOfARoom opens the live page at a
// projector's 1024 × 768 and a wide screen's 1920 × 1080, in English and
// in Chinese, in the normal view and in presentation mode: neither scrolls
// sideways nor breaks a word or leaves a box (layoutProblems); in
// presentation mode every shown text is at least 20 px and 7:1 against its
// background, the buttons are gone and at most five hops are shown, and
// the page's switch leads back to the normal view. Regression: box text
// was 11-12 px in #8b9aa8 on a dark background, with no large-text mode.
// Set ZEROKUBE_UI_SCREENSHOTS to a directory to keep the screenshots.
func TestPresentationModeReadsFromTheBackOfARoom(t *testing.T) {
	bin := requireChromium(t)
	requireCJKFont(t)
	b, base := openLivePage(t, bin, "--ui", "127.0.0.1:0", "--present", "--churn-interval", "300ms", "--resync=0", "--tombstone-after=200ms")
	shots := os.Getenv(screenshotsEnv)
	if shots == "" {
		shots = t.TempDir()
	}
	for _, l := range []string{"en", "zh"} {
		for _, size := range [][2]int{{1024, 768}, {1920, 1080}} {
			for _, present := range []string{"1", "0"} {
				mode := map[string]string{"1": "present", "0": "normal"}[present]
				t.Run(fmt.Sprintf("%s/%dx%d/%s", l, size[0], size[1], mode), func(t *testing.T) {
					b.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": false})
					b.call(t, "Page.navigate", map[string]any{"url": base + "?lang=" + l + "&present=" + present})
					b.waitJS(t, "the page filled in", `
						document.documentElement.lang.startsWith("`+l+`") &&
						(document.body.dataset.present === "1") === `+fmt.Sprint(present == "1")+` &&
						document.getElementById("refl-state").dataset.state === "watching" &&
						+document.getElementById("queue-tombstones").textContent > 0 &&
						document.querySelector("#loop-last .key") && document.querySelector(".handler-calls") &&
						document.querySelectorAll("#log tr").length > 10`)
					shot := filepath.Join(shots, fmt.Sprintf("live-page-%s-%dx%d-%s.png", l, size[0], size[1], mode))
					b.screenshot(t, shot)
					var problems []string
					require.NoError(t, json.Unmarshal(b.eval(t, layoutProblems), &problems))
					require.Empty(t, problems, "screenshot: %s", shot)
					if present == "0" {
						return
					}
					require.NoError(t, json.Unmarshal(b.eval(t, readableFromTheBack), &problems))
					require.Empty(t, problems, "unreadable from the back of a room (screenshot: %s)", shot)
					require.Equal(t, 0, b.evalInt(t, `document.getElementById("controls").getClientRects().length`), "the buttons stay in the normal view")
					require.LessOrEqual(t, b.evalInt(t, `[...document.querySelectorAll("#log tr")].filter((r) => r.getClientRects().length > 0).length`), 5)
					require.Equal(t, 6, b.evalInt(t, `[...document.querySelectorAll(".pipeline .box")].filter((r) => r.getClientRects().length > 0).length`))
					want := map[string]string{"en": "Normal view", "zh": "普通视图"}[l]
					var got string
					require.NoError(t, json.Unmarshal(b.eval(t, `document.getElementById("present-switch").textContent`), &got))
					require.Equal(t, want, got, "the switch back to the normal view")
				})
			}
		}
	}
}
