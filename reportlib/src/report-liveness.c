/* Placeholder while this file is being written. */
typedef int tsr_unwritten_report_liveness;
