/** toolgate's version, as `--version` prints it and as it names itself to servers. */
export const TOOLGATE_VERSION = "0.1.0";
