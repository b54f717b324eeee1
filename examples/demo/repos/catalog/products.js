// The products this service provides. Consumers read them through GET /products.
export const products = [
  { id: 'cup', name: 'Espresso cup' },
  { id: 'kettle', name: 'Pour-over kettle' },
  { id: 'grinder', name: 'Burr grinder' },
];

export function listProducts() {
  return products.map((p) => ({ ...p }));
}
