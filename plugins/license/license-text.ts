// The SPDX identifier of a licence from its text, for ecosystems whose packages carry a LICENSE file and
// no licence field (Go modules). Only the common licences' own wording is recognised; anything else is
// unknown rather than guessed.
const TEXTS: Array<[string, RegExp]> = [
  ['Apache-2.0', /Apache License,?\s+Version 2\.0/i],
  ['MPL-2.0', /Mozilla Public License,?\s+(?:v\.\s*|Version\s+)2\.0/i],
  ['AGPL-3.0', /GNU AFFERO GENERAL PUBLIC LICENSE\s+Version 3/i],
  ['LGPL-3.0', /GNU LESSER GENERAL PUBLIC LICENSE\s+Version 3/i],
  ['LGPL-2.1', /GNU LESSER GENERAL PUBLIC LICENSE\s+Version 2\.1/i],
  ['GPL-3.0', /GNU GENERAL PUBLIC LICENSE\s+Version 3/i],
  ['GPL-2.0', /GNU GENERAL PUBLIC LICENSE\s+Version 2/i],
  ['MIT', /Permission is hereby granted, free of charge, to any person obtaining a copy/i],
  ['ISC', /Permission to use, copy, modify, and(?:\/or)? distribute this software for any purpose with or without fee is hereby granted/i],
  ['Unlicense', /This is free and unencumbered software released into the public domain/i],
  ['0BSD', /Permission to use, copy, modify, and\/or distribute this software for any purpose with or without fee is hereby granted\.\s+THE SOFTWARE IS PROVIDED "AS IS"/i],
];

const BSD = /Redistribution and use in source and binary forms, with or without\s+modification, are permitted/i;

export function licenseOfText(text: string): string | undefined {
  const flat = text.replace(/\s+/g, ' ');
  if (BSD.test(flat)) return /Neither the name/i.test(flat) ? 'BSD-3-Clause' : 'BSD-2-Clause';
  // 0BSD's wording contains ISC's: the more specific one wins.
  const zero = TEXTS.find(([id]) => id === '0BSD')![1];
  if (zero.test(flat)) return '0BSD';
  return TEXTS.find(([, pattern]) => pattern.test(flat))?.[0];
}
