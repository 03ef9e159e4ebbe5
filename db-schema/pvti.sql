-- .pvti schema: being written.
PRAGMA application_id = 1414747732;
PRAGMA user_version = 1;
