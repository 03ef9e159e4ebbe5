#!/bin/sh
# The verbs of reportlib's API (reportlib/include/tilescope/report.h,
# "Conventions"), checked on what libtilescope-report exports: every tsr_
# function either makes or frees a handle (_new, _open, _free), names its
# verb (get_, list_, fill_, dup_, lookup_, set_), or is one of the
# actions and pure functions listed below. A new export that fits none
# fails here until it is named by the grammar or added to the list with
# a reason.
#
# With LIBBASE, libtilescope-base's tsb_ utilities too: each is
# tsb_<object>_<verb>... for an object of base/include/tilescope (alloc,
# hashmap, json, utf8, pyramid) with a verb listed below, a tsb_format_
# call of numfmt.h or its one reader (tsb_parse_decimal), one of axis.h's
# two rules (tsb_axis_nice_ticks, tsb_axis_nice_ceil), sha256.h's digest
# (tsb_sha256, its init/update/final steps and its hex and base64
# forms, the names FIPS 180-4 and every SHA library use), or one of the C
# library's allocation calls under its own name (tsb_malloc: "the malloc
# of Tilescope").
# usage: check-api-grammar.sh LIBREPORT [LIBBASE]
lib=$1
libbase=$2
status=0

# Actions named after the work they do, the error accessors, and pure
# functions over the library's constants; tsr_trace_reopen makes a handle
# as an _open does, from another handle's files instead of paths (as
# freopen is to fopen). The history store's writes add runs (of figures,
# a report, a report and a trace) and samples to a run, and merge runs;
# its query hands each series to a callback, as tsr_report_query rows.
allowed='tsr_compare tsr_compare_programs tsr_report_query tsr_trace_query tsr_trace_search
tsr_trace_reopen
tsr_history_add tsr_history_add_report tsr_history_add_files tsr_history_add_sample
tsr_history_merge tsr_history_compare tsr_history_error
tsr_history_query_series
tsr_trace_export_chrome tsr_export_graph_profile tsr_export_execution_profile
tsr_export_write_graph_profile tsr_export_write_execution_profile tsr_format_duration
tsr_summary_print tsr_last_error tsr_report_error tsr_trace_error
tsr_error_name tsr_category_count tsr_category_name tsr_category_label tsr_step_type_name
tsr_region_name tsr_program_type_name tsr_sync_type_name tsr_exchange_kind_name
tsr_profiler_mode_name tsr_ipu_version_name tsr_data_type_name
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

if [ -n "$libbase" ]; then
	libc='malloc calloc realloc reallocarray strdup strndup asprintf vasprintf free'
	verbs='new|new_[a-z]+|free|get_[a-z0-9_]+|lookup_[a-z0-9_]+|put_[a-z0-9_]+|remove_[a-z0-9_]+|set_[a-z0-9_]+|reserve|next|count|begin_[a-z]+|end_[a-z]+|key|string|string_len|u64|i64|double|bool|null|raw|error|finish|steal|fputs|decode|valid|truncate|start|hook_clear|injected|query'
	base_names=$(nm -D --defined-only "$libbase" | awk '$2 == "T" {print $3}' | grep '^tsb_')
	if [ -z "$base_names" ]; then
		echo "FAIL: no tsb_ functions read from $libbase (nm -D failed?)"
		exit 1
	fi
	bstatus=0
	count=0
	for name in $base_names; do
		count=$((count + 1))
		case " $libc " in *" ${name#tsb_} "*) continue ;; esac
		if echo "$name" | grep -Eq "^tsb_(alloc|hashmap|json|utf8|pyramid)_($verbs)\$" ||
		   echo "$name" | grep -Eq '^tsb_format_[a-z0-9]+$|^tsb_parse_decimal$|^tsb_group_digits$|^tsb_hash_(str|bytes)$|^tsb_axis_nice_(ticks|ceil)$|^tsb_sha256(_(init|update|final|hex|base64))?$'; then
			continue
		fi
		echo "FAIL: $name is not tsb_<object>_<verb> of the base grammar"
		bstatus=1
	done
	[ $bstatus -eq 0 ] && echo "PASS: $count tsb_ functions, each named by the base grammar"
	[ $bstatus -eq 0 ] || status=1
fi
exit $status
