/**
 * Ready-made messages for the composer (one click fills its form) and the stream's "Send sample
 * events" button. Shaped after Segment's spec (e-commerce events, page and group traits), so what a
 * user sees delivered looks like what a real app would send.
 */
import type { MessageType } from './messages.ts';

/** The fields the composer's form edits; each message type uses some of them. */
export interface ComposerFields {
  userId?: string;
  anonymousId?: string;
  event?: string;
  name?: string;
  category?: string;
  properties?: Record<string, unknown>;
  traits?: Record<string, unknown>;
  groupId?: string;
  previousId?: string;
}

export interface ComposerTemplate {
  id: string;
  label: string;
  type: MessageType;
  fields: ComposerFields;
}

/** The message types, in the composer's order (kept here so the renderer need not load the zod schemas of messages.ts). */
export const COMPOSER_TYPES: readonly MessageType[] = ['identify', 'track', 'page', 'screen', 'group', 'alias'];

/** Which form fields a message type has, in the form's order. */
export const FIELDS_BY_TYPE: Record<MessageType, readonly (keyof ComposerFields)[]> = {
  identify: ['userId', 'anonymousId', 'traits'],
  track: ['userId', 'anonymousId', 'event', 'properties'],
  page: ['userId', 'anonymousId', 'name', 'category', 'properties'],
  screen: ['userId', 'anonymousId', 'name', 'category', 'properties'],
  group: ['userId', 'anonymousId', 'groupId', 'traits'],
  alias: ['userId', 'anonymousId', 'previousId'],
};

export const TEMPLATES: readonly ComposerTemplate[] = [
  {
    id: 'identify-customer',
    label: 'Customer profile',
    type: 'identify',
    fields: {
      userId: 'u_ada',
      traits: { email: 'ada@example.com', name: 'Ada Lovelace', plan: 'pro', company: 'Analytical Engines', createdAt: '2026-01-15T09:30:00.000Z' },
    },
  },
  {
    id: 'signed-up',
    label: 'Signed Up',
    type: 'track',
    fields: { userId: 'u_ada', event: 'Signed Up', properties: { plan: 'free', method: 'email', referrer: 'newsletter' } },
  },
  {
    id: 'order-completed',
    label: 'Order Completed',
    type: 'track',
    fields: {
      userId: 'u_ada',
      event: 'Order Completed',
      properties: {
        order_id: 'ord_50314',
        total: 27.5,
        revenue: 25,
        shipping: 2.5,
        currency: 'EUR',
        products: [
          { product_id: 'sku_507', name: 'Notebook', price: 15, quantity: 1 },
          { product_id: 'sku_231', name: 'Pencil set', price: 5, quantity: 2 },
        ],
      },
    },
  },
  {
    id: 'product-viewed',
    label: 'Product Viewed',
    type: 'track',
    fields: { anonymousId: 'anon_9f2c', event: 'Product Viewed', properties: { product_id: 'sku_507', name: 'Notebook', price: 15, currency: 'EUR' } },
  },
  {
    id: 'pricing-page',
    label: 'Pricing page',
    type: 'page',
    fields: {
      anonymousId: 'anon_9f2c',
      name: 'Pricing',
      category: 'Marketing',
      properties: { path: '/pricing', url: 'https://shop.example.com/pricing', title: 'Pricing — Example Shop', referrer: 'https://www.google.com/' },
    },
  },
  {
    id: 'docs-page',
    label: 'Docs page',
    type: 'page',
    fields: { userId: 'u_ada', name: 'Getting started', category: 'Docs', properties: { path: '/docs/start', url: 'https://shop.example.com/docs/start', title: 'Getting started' } },
  },
  {
    id: 'checkout-screen',
    label: 'Checkout screen',
    type: 'screen',
    fields: { userId: 'u_ada', name: 'Checkout', category: 'Shop', properties: { step: 2, cart_items: 3 } },
  },
  {
    id: 'company-account',
    label: 'Company account',
    type: 'group',
    fields: { userId: 'u_ada', groupId: 'acme', traits: { name: 'Acme Inc.', industry: 'Manufacturing', employees: 420, plan: 'enterprise' } },
  },
  {
    id: 'sign-up-alias',
    label: 'Merge anonymous visitor',
    type: 'alias',
    fields: { userId: 'u_ada', previousId: 'anon_9f2c' },
  },
];

export function templatesFor(type: MessageType): ComposerTemplate[] {
  return TEMPLATES.filter((t) => t.type === type);
}

export function templateById(id: string): ComposerTemplate | undefined {
  return TEMPLATES.find((t) => t.id === id);
}

/**
 * What "Send sample events" sends: one visitor's first session — an anonymous page view, sign-up
 * with identify and the alias that merges the two, an order, and the company they belong to.
 */
export function sampleMessages(): { type: MessageType; fields: ComposerFields }[] {
  const pick = (id: string) => {
    const template = templateById(id)!;
    return { type: template.type, fields: template.fields };
  };
  return [
    pick('pricing-page'),
    pick('signed-up'),
    pick('identify-customer'),
    pick('sign-up-alias'),
    pick('order-completed'),
    pick('company-account'),
  ];
}
