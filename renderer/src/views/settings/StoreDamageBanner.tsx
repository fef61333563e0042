import { useStore } from 'zustand';
import type { Inspector } from '../../store/inspector.ts';
import { useInspector } from '../../store/react.ts';
import { createStoreDamageController, type StoreDamageController } from './store-damage.ts';
import './settings.css';

/** One controller per inspector, made on first use and kept as long as it (the banner is always mounted). */
const controllers = new WeakMap<Inspector, StoreDamageController>();

/**
 * Under the top bar on every view once the store was found damaged: what and where, and the fix. It
 * stays — the store stays damaged until Sluice is stopped and the store salvaged.
 */
export function StoreDamageBanner() {
  const inspector = useInspector();
  let controller = controllers.get(inspector);
  if (!controller) controllers.set(inspector, (controller = createStoreDamageController(inspector)));
  const damage = useStore(controller.store, (state) => state.damage);
  if (damage === null) return null;
  return (
    <div className="store-damage-banner" role="alert" aria-label="The store is damaged">
      <span className="store-damage-icon" aria-hidden="true">
        ⚠
      </span>
      <span className="store-damage-text">
        <strong>The store is damaged</strong> — {damage.message}. Once Sluice is stopped: <code>{damage.fix}</code>
      </span>
    </div>
  );
}
