// How the Stripe SDK encodes request parameters (application/x-www-form-urlencoded with bracketed
// paths: items[0][price]=…, metadata[tenantId]=…), decoded back into objects and arrays.
export function decodeStripeForm(text: string): Record<string, any> {
  const root: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.split(/\[|\]\[|\]/).filter((part, i) => i === 0 || part !== '');
    let node: any = root;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      if (last) {
        node[part] = value;
        return;
      }
      node[part] ??= /^\d+$/.test(path[i + 1]!) ? [] : {};
      node = node[part];
    });
  }
  return root;
}
