/**
 * Which argument names mean "a path" or "a resource", and which mean "a secret". Names are split into
 * words at every character that is not a letter or digit and at camelCase boundaries (`filePath` → file,
 * path; `APIKey` → api, key; `x-api-key` → x, api, key) and compared in lowercase.
 */

/** Splits a member name into lowercase words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "")
    .map((w) => w.toLowerCase());
}

/**
 * A name is path-like when its LAST word is one of these (`path`, `old_path`, `source_file`, `root_dir`), or
 * the whole name, words joined, is one of PATH_COMPOUNDS (`file_name`, `fileName`, `workdir`). Looking at
 * the last word keeps `file_count` or `directory_depth` out.
 */
export const PATH_WORDS: ReadonlySet<string> = new Set([
  "path",
  "paths",
  "pathname",
  "pathnames",
  "file",
  "files",
  "filename",
  "filenames",
  "filepath",
  "filepaths",
  "dir",
  "dirs",
  "dirname",
  "directory",
  "directories",
  "folder",
  "folders",
  "cwd",
  "workdir",
  "root",
  "roots",
  "source",
  "sources",
  "src",
  "destination",
  "destinations",
  "dest",
  "uri",
  "uris",
]);
export const PATH_COMPOUNDS: ReadonlySet<string> = new Set([
  "filename",
  "filenames",
  "filepath",
  "filepaths",
  "dirname",
  "dirpath",
  "pathname",
  "pathprefix",
  "workdir",
  "workingdir",
  "workingdirectory",
  "basedir",
  "rootdir",
  "srcdir",
  "destdir",
  "outdir",
  "outfile",
  "infile",
  "outputfile",
  "inputfile",
  "outputdir",
  "inputdir",
]);

/** Resource-like: the last word names a URI, URL or resource (`uri`, `resource_url`, `href`). */
export const RESOURCE_WORDS: ReadonlySet<string> = new Set([
  "uri",
  "uris",
  "url",
  "urls",
  "resource",
  "resources",
  "href",
]);

export function isPathName(name: string): boolean {
  return lastWordOrCompound(name, PATH_WORDS, PATH_COMPOUNDS);
}

export function isResourceName(name: string): boolean {
  return lastWordOrCompound(name, RESOURCE_WORDS, EMPTY);
}

/**
 * Secret-looking names (redaction's `sensitive_fields`). A name is sensitive when ANY of its words is in
 * SENSITIVE_WORDS (`password`, `githubToken`, `Set-Cookie`) or its words joined contain one of
 * SENSITIVE_COMPOUNDS (`api_key`, `x-api-key`, `privateKey`, `AWS_SECRET_ACCESS_KEY`). Over-matching
 * (`tokenizer` is not `token`) only redacts more, which is the safe side; `key` alone is not on the list
 * because it names map keys far more often than secrets — list such names in `fields`.
 */
export const SENSITIVE_WORDS: ReadonlySet<string> = new Set([
  "password",
  "passwords",
  "passwd",
  "pwd",
  "passphrase",
  "secret",
  "secrets",
  "token",
  "tokens",
  "apikey",
  "apikeys",
  "auth",
  "authorization",
  "authentication",
  "cookie",
  "cookies",
  "session",
  "sessions",
  "sessionid",
  "credential",
  "credentials",
  "creds",
  "bearer",
  "jwt",
  "otp",
  "totp",
  "pin",
  "cvv",
  "cvc",
  "ssn",
  "csrf",
  "xsrf",
  "privatekey",
  "accesskey",
  "secretkey",
  "clientsecret",
  "signingkey",
  "encryptionkey",
  "dsn",
]);
export const SENSITIVE_COMPOUNDS: readonly string[] = [
  "apikey",
  "privatekey",
  "accesskey",
  "secretkey",
  "clientsecret",
  "signingkey",
  "encryptionkey",
  "masterkey",
  "sessionid",
  "sessionkey",
  "connectionstring",
  "accesstoken",
  "refreshtoken",
  "idtoken",
  "password",
  "passwd",
  "secret",
  "token",
];

export function isSensitiveName(name: string): boolean {
  const words = nameWords(name);
  for (const w of words) if (SENSITIVE_WORDS.has(w)) return true;
  const joined = words.join("");
  for (const c of SENSITIVE_COMPOUNDS) if (joined.includes(c)) return true;
  return false;
}

const EMPTY: ReadonlySet<string> = new Set();

function lastWordOrCompound(
  name: string,
  words: ReadonlySet<string>,
  compounds: ReadonlySet<string>,
): boolean {
  const w = nameWords(name);
  const last = w[w.length - 1];
  if (last !== undefined && words.has(last)) return true;
  return compounds.has(w.join(""));
}
