/** Conditions on an OAuth access token's claims that pick a principal (tokens file `claims:`). */
export interface ClaimMatch {
  sub?: string;
  /** `client_id`, else `azp`. */
  client_id?: string;
  /** Every one of these must be in the token's `scope` or `scp` (each a space-separated string or a list). */
  scope?: string[];
  /** Every one of these must be an element of the token's `groups` claim (a list, or one string), whole. */
  groups?: string[];
  iss?: string;
}
