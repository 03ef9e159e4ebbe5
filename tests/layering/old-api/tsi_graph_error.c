/* Code written for tsi_graph_error(), which returned NULL for no error
 * until 0.2 and "" after: it must not compile (0.4.0 renamed the call).
 * expect: tsi_graph_get_error */
#include <tilescope/ipu.h>

int graph_failed(tsi_graph *g)
{
	return tsi_graph_error(g) != NULL;
}
