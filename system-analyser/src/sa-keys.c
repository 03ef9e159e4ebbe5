/*
 * The System Analyser's keys (sa-keys.h). Entries with an action are the
 * window's accelerators (the actions of sa-window.c, sa-reload.c,
 * sa-compare.c and sa-graph-link.c); the others are the keys that the
 * timeline (sa-timeline-input.c), the overview, the flame graph, the
 * tables and the search entry handle themselves: a key added to one of
 * those belongs here too.
 */
#include "sa-keys.h"

static const TsdKey keys[] = {
	{"General", "Traces", "Open traces", "<Control>o", "win.open"},
	{"General", "Traces", "Reload the traces", "<Control>r", "reload.now"},
	{"General", "Traces", "Compare the marked windows", "<Control>m", "compare.marked"},
	/* Alt+G is the mnemonic of the "Open in _Graph Analyser" button: an
	 * application accelerator on the same key makes GTK 4.8 cycle the
	 * mnemonic (focus the button) instead of pressing it. */
	{"General", "Traces", "Open the selected run in the Graph Analyser", "<Alt>g", NULL},
	{"General", "Traces", "Cancel opening", "Escape", NULL},

	{"General", "Search", "Find spans", "<Control>f", "win.find"},
	{"General", "Search", "Next match", "F3 <Control>g", "win.find-next"},
	{"General", "Search", "Previous match", "<Shift>F3 <Control><Shift>g", "win.find-previous"},
	{"General", "Search", "Next or previous match (in the search entry)",
	 "Return <Shift>Return", NULL},

	{"General", "Details", "Statistics", "<Alt>1", "win.details-page(0)"},
	{"General", "Details", "Call Tree", "<Alt>2", "win.details-page(1)"},
	{"General", "Details", "Flame Graph", "<Alt>3", "win.details-page(2)"},
	{"General", "Details", "Span", "<Alt>4", "win.details-page(3)"},
	{"General", "Details", "Copy the selected row of a table", "<Control>c", NULL},

	{"Timeline", "Timeline", "Zoom in", "w plus", NULL},
	{"Timeline", "Timeline", "Zoom out", "s minus", NULL},
	{"Timeline", "Timeline", "Pan left", "a Left", NULL},
	{"Timeline", "Timeline", "Pan right", "d Right", NULL},
	{"Timeline", "Timeline", "Show the whole trace", "Home", NULL},
	{"Timeline", "Timeline", "Zoom to the marked range or the selected span", "z", NULL},
	{"Timeline", "Timeline", "Mark the visible window", "m", NULL},
	{"Timeline", "Timeline", "Wall-clock or trace time on the ruler", "t", NULL},
	{"Timeline", "Timeline", "Clear the selection and the marked range", "Escape", NULL},
	{"Timeline", "Timeline rows", "Move between rows", "Up Down", NULL},
	{"Timeline", "Timeline rows", "Scroll the rows by a page", "Page_Up Page_Down", NULL},
	{"Timeline", "Timeline rows", "Fold or unfold the row", "space Return", NULL},
	{"Timeline", "Timeline rows", "Pin the row at the top", "p", NULL},
	{"Timeline", "Timeline rows", "Hide the row", "h", NULL},
	{"Timeline", "Timeline rows", "Show the hidden rows", "<Shift>h", NULL},
	{"Timeline", "Timeline rows", "A counter row as an area or a line", "l", NULL},

	{"Overview and Flame Graph", "Overview", "Move the window", "a d Left Right", NULL},
	{"Overview and Flame Graph", "Overview", "Move the window by its width",
	 "Page_Up Page_Down", NULL},
	{"Overview and Flame Graph", "Overview", "To the start or the end", "Home End", NULL},

	{"Overview and Flame Graph", "Flame Graph", "Previous or next sibling", "Left Right", NULL},
	{"Overview and Flame Graph", "Flame Graph", "Parent or first child", "Up Down", NULL},
	{"Overview and Flame Graph", "Flame Graph", "The first root", "Home", NULL},
	{"Overview and Flame Graph", "Flame Graph", "Clear the selection", "Escape", NULL},
};

const TsdKey *sa_keys(size_t *n)
{
	*n = G_N_ELEMENTS(keys);
	return keys;
}
