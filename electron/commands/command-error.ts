/**
 * How a command says it cannot go on. Both end the command with exit code 2 and one `sluice: …` line:
 * a UsageError is followed by the command's help (the command line itself is wrong), an InputError is
 * not (the command line is fine; a file, plan or store it names cannot be used, and the sentence says
 * why).
 */
export class UsageError extends Error {}

export class InputError extends Error {}
