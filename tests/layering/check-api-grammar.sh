#!/bin/sh
# The verbs of reportlib's API (reportlib/include/tilescope/report.h,
# "Conventions"), checked on what libtilescope-report exports: every tsr_
# function either makes or frees a handle (_new, _open, _free), names its
# verb (get_, list_, fill_, dup_, lookup_, set_), or is one of the
# actions and pure functions listed below. A new export that fits none
# fails here until it is named by the grammar or added to the list with
# a reason.
# usage: check-api-grammar.sh LIBREPORT
lib=$1
status=0

# Actions named after the work they do, the error accessors, and pure
# functions over the library's constants; tsr_trace_reopen makes a handle
# as an _open does, from another handle's files instead of paths (as
# freopen is to fopen).
allowed='tsr_compare tsr_compare_programs tsr_report_query tsr_trace_query tsr_trace_search
tsr_trace_reopen
tsr_trace_export_chrome tsr_export_graph_profile tsr_export_execution_profile
tsr_export_write_graph_profile tsr_export_write_execution_profile tsr_format_duration
tsr_summary_print tsr_last_error tsr_report_error tsr_trace_error
tsr_error_name tsr_category_count tsr_category_name tsr_category_label tsr_step_type_name
tsr_colours_enabled'

names=$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | grep '^tsr_')
if [ -z "$names" ]; then
	echo "FAIL: no tsr_ functions read from $lib (nm -D failed?)"
	exit 1
fi
count=0
for name in $names; do
	count=$((count + 1))
	case " $(echo $allowed) " in *" $name "*) continue ;; esac
	if echo "$name" | grep -Eq '_(new|open|free)$|_(get|list|fill|dup|lookup|set)_'; then
		continue
	fi
	echo "FAIL: $name has no verb of the grammar (report.h, Conventions)"
	status=1
done
[ $status -eq 0 ] && echo "PASS: $count tsr_ functions, each named by the grammar"
exit $status
