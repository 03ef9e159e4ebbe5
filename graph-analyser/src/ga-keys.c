/*
 * The Graph Analyser's keys (ga-keys.h). Entries with an action are the
 * window's accelerators; the others are the keys that the sidebar, the
 * views, the charts (chartkit's TscChart and TscHeatmap) and the
 * Execution Trace's lanes (ga-step-lanes.c) handle themselves: a key
 * added to one of those belongs here too.
 */
#include "ga-keys.h"

static const TsdKey keys[] = {
	{"General", "Reports", "Open a report", "<Control>o", "win.open"},
	{"General", "Reports", "Compare two reports", "<Control><Shift>o", "win.compare"},
	{"General", "Reports", "Reload the report", "<Control>r F5", "win.reload"},
	{"General", "Reports", "Cancel opening", "Escape", NULL},

	{"General", "Views", "Summary", "<Control>1", "win.show-view::summary"},
	{"General", "Views", "Insights", "<Control>2", "win.show-view::insights"},
	{"General", "Views", "Memory", "<Control>3", "win.show-view::memory"},
	{"General", "Views", "Liveness", "<Control>4", "win.show-view::liveness"},
	{"General", "Views", "Program Tree", "<Control>5", "win.show-view::programs"},
	{"General", "Views", "Operations", "<Control>6", "win.show-view::operations"},
	{"General", "Views", "Execution Trace", "<Control>7", "win.show-view::trace"},
	{"General", "Views", "Back to where the last jump left from", "<Alt>Left", "win.back"},
	{"General", "Views", "Forward again", "<Alt>Right", "win.forward"},
	{"General", "Views", "Choose a view in the sidebar", "Up Down Return", NULL},

	{"Charts", "Charts (Memory, Liveness)", "Zoom in", "plus", NULL},
	{"Charts", "Charts (Memory, Liveness)", "Zoom out", "minus", NULL},
	{"Charts", "Charts (Memory, Liveness)", "Show everything", "Home", NULL},
	{"Charts", "Charts (Memory, Liveness)", "Move to the previous or next item",
	 "Left Right", NULL},
	{"Charts", "Charts (Memory, Liveness)", "Extend the selection",
	 "<Shift>Left <Shift>Right", NULL},
	{"Charts", "Charts (Memory, Liveness)", "Pan", "<Control>Left <Control>Right", NULL},
	{"Charts", "Charts (Memory, Liveness)", "Pan by a page", "Page_Up Page_Down", NULL},
	{"Charts", "Charts (Memory, Liveness)", "Select the item", "space Return", NULL},
	{"Charts", "Charts (Memory, Liveness)", "Add or remove the item", "<Control>space", NULL},
	{"Charts", "Charts (Memory, Liveness)", "Clear the selection", "Escape", NULL},

	{"Charts", "Tile map", "Move between tiles", "Left Right Up Down", NULL},
	{"Charts", "Tile map", "Extend the selection",
	 "<Shift>Left <Shift>Right <Shift>Up <Shift>Down", NULL},
	{"Charts", "Tile map", "Select the tile", "space Return", NULL},
	{"Charts", "Tile map", "Add or remove the tile", "<Control>space", NULL},
	{"Charts", "Tile map", "Clear the selection", "Escape", NULL},

	{"Program Tree and Execution Trace", "Program Tree", "Search programs", "<Control>f", NULL},
	{"Program Tree and Execution Trace", "Program Tree",
	 "Next or previous match (in the search entry)", "Return <Shift>Return", NULL},
	{"Program Tree and Execution Trace", "Program Tree", "Expand or collapse the program",
	 "Right Left", NULL},

	{"Program Tree and Execution Trace", "Execution Trace", "Zoom in", "w plus", NULL},
	{"Program Tree and Execution Trace", "Execution Trace", "Zoom out", "s minus", NULL},
	{"Program Tree and Execution Trace", "Execution Trace", "Pan", "a d Left Right", NULL},
	{"Program Tree and Execution Trace", "Execution Trace", "Show the whole run", "Home", NULL},
	{"Program Tree and Execution Trace", "Execution Trace", "Scroll the BSP rows",
	 "Up Down Page_Up Page_Down", NULL},
	{"Program Tree and Execution Trace", "Execution Trace", "Zoom the BSP rows",
	 "<Control>Up <Control>Down", NULL},
	{"Program Tree and Execution Trace", "Execution Trace", "Clear the selection",
	 "Escape", NULL},
	{"Program Tree and Execution Trace", "Execution Trace", "Flat, Flame or BSP",
	 "<Alt>l <Alt>m <Alt>b", NULL},
	{"Program Tree and Execution Trace", "Execution Trace", "The run (of report B: Alt+U)",
	 "<Alt>r <Alt>u", NULL},
};

const TsdKey *ga_keys(size_t *n)
{
	*n = G_N_ELEMENTS(keys);
	return keys;
}
