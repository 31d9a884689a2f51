// The typed placeholders the scrubber puts where PII was; other text modules read them as words to skip.
export const PII_PLACEHOLDERS = ['[EMAIL]', '[PHONE]', '[URL]', '[ADDRESS]', '[NAME]', '[BIRTHDATE]', '[ID]', '[PERSONAL]'] as const;
export type PiiPlaceholder = (typeof PII_PLACEHOLDERS)[number];
