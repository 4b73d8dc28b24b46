//! Writers from the model to other tools' formats: speedscope JSON, Chrome trace JSON, folded stacks.
