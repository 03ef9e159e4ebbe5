/* Placeholder while this file is being written. */
typedef int tsi_unwritten_debug;
