/** Conditions on an OAuth access token's claims that pick a principal (tokens file `claims:`). */
export interface ClaimMatch {
  sub?: string;
  /** `client_id`, else `azp`. */
  client_id?: string;
  /** Every one of these must be in the token's `scope` (space-separated) or `scp` (a list). */
  scope?: string[];
  /** Every one of these must be in the token's `groups` claim (a list, or one string). */
  groups?: string[];
  iss?: string;
}
