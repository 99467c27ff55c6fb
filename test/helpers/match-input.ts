import type { MatchInput } from '../../src/core/classify/rule-set.js';

/** What the rules see of a message: an empty one, with the fields a test names. */
export const matchInput = (over: Partial<MatchInput> = {}): MatchInput => ({
  subject: '',
  fromName: null,
  fromAddress: null,
  body: '',
  listId: null,
  listAddress: null,
  hasPatch: false,
  ...over,
});
