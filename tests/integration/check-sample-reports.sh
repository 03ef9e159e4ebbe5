#!/bin/sh
# Checks that every report in sample-reports/ opens as a profile.pop of the
# current schema (the application id and version db-schema/format.h
# declares), is intact, and has its debug.cbor beside it.
#
# Every .pvti there must be a trace of the current trace schema.
#
# usage: check-sample-reports.sh SAMPLE_DIR FORMAT_H
set -u

[ $# -eq 2 ] || { echo "usage: check-sample-reports.sh SAMPLE_DIR FORMAT_H" >&2; exit 2; }
dir=$1
want_version=$(sed -n 's/^#define TSF_PROFILE_SCHEMA_VERSION \([0-9][0-9]*\).*/\1/p' "$2")
want_app=$(( $(sed -n 's/^#define TSF_PROFILE_APPLICATION_ID \(0x[0-9A-Fa-f]*\).*/\1/p' "$2") ))
status=0
n=0
for pop in "$dir"/*/profile.pop; do
	[ -f "$pop" ] || continue
	n=$((n + 1))
	sample=$(dirname "$pop")
	app=$(sqlite3 -readonly "$pop" 'PRAGMA application_id')
	version=$(sqlite3 -readonly "$pop" 'PRAGMA user_version')
	check=$(sqlite3 -readonly "$pop" 'PRAGMA quick_check')
	if [ "$app" != "$want_app" ] || [ "$version" != "$want_version" ]; then
		echo "FAIL: $pop is application $app version $version; the schema is $want_app version $want_version (run sample-reports/regenerate.sh)"
		status=1
	elif [ "$check" != "ok" ]; then
		echo "FAIL: $pop: quick_check says $check"
		status=1
	else
		echo "ok: $pop (schema version $version)"
	fi
	[ -s "$sample/debug.cbor" ] || { echo "FAIL: $sample/debug.cbor is missing"; status=1; }
done
want_pvti_version=$(sed -n 's/^#define TSF_PVTI_SCHEMA_VERSION \([0-9][0-9]*\).*/\1/p' "$2")
want_pvti_app=$(( $(sed -n 's/^#define TSF_PVTI_APPLICATION_ID \(0x[0-9A-Fa-f]*\).*/\1/p' "$2") ))
traces=0
for pvti in "$dir"/*/*.pvti; do
	[ -f "$pvti" ] || continue
	traces=$((traces + 1))
	app=$(sqlite3 -readonly "$pvti" 'PRAGMA application_id')
	version=$(sqlite3 -readonly "$pvti" 'PRAGMA user_version')
	if [ "$app" != "$want_pvti_app" ] || [ "$version" != "$want_pvti_version" ]; then
		echo "FAIL: $pvti is application $app version $version; the trace schema is $want_pvti_app version $want_pvti_version (run sample-reports/regenerate.sh)"
		status=1
	else
		echo "ok: $pvti (trace schema version $version)"
	fi
done
if [ "$traces" -lt 1 ]; then
	echo "FAIL: expected a .pvti trace in $dir"
	status=1
fi
if [ "$n" -lt 4 ]; then
	echo "FAIL: expected 4 sample reports in $dir, found $n"
	status=1
fi
exit $status
