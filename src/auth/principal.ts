/** Who is asking, from a verified token: the user (`sub`) and the organization they act for. */
export interface Principal {
  sub: string;
  /** The `org` claim: a UUID, or null when the token carries none. */
  org: string | null;
}
