-- profile.pop schema: being written.
PRAGMA application_id = 1414746182;
PRAGMA user_version = 1;
