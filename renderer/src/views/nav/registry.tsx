import type { ComponentType } from 'react';
import type { ViewKey } from '../../lib/route.ts';
import { DeliveriesView } from '../deliveries/DeliveriesView.tsx';
import { IssuesView } from '../issues/IssuesView.tsx';
import { DestinationsView } from '../destinations/DestinationsView.tsx';
import { SourcesView } from '../sources/SourcesView.tsx';
import { ComposerView } from '../composer/ComposerView.tsx';
import { DeletionsView } from '../deletions/DeletionsView.tsx';
import { ReceiverView } from '../receiver/ReceiverView.tsx';
import { AudiencesView } from '../audiences/AudiencesView.tsx';
import { SettingsView } from '../settings/SettingsView.tsx';
import { PlansView } from '../plans/PlansView.tsx';

/**
 * The views other than the stream (which App lays out itself). A view missing here shows as disabled
 * in the rail. Each view lives in its own folder (`views/<key>/`) and takes no props: it reads the
 * inspector through `useInspector()` and calls the core through `inspector.call(channel, request)`.
 */
export const VIEWS: Partial<Record<Exclude<ViewKey, 'stream'>, ComponentType>> = {
  composer: ComposerView,
  receiver: ReceiverView,
  deletions: DeletionsView,
  deliveries: DeliveriesView,
  issues: IssuesView,
  destinations: DestinationsView,
  sources: SourcesView,
  audiences: AudiencesView,
  plans: PlansView,
  settings: SettingsView,
};
