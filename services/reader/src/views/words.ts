/**
 * The reader's own words (everything it shows that is not the site's content), in the languages a
 * space may be written in that the reader speaks; any other language reads them in English.
 */
export interface ReaderWords {
  skipToContent: string;
  /** The search form's label and button. */
  search: string;
  searchPlaceholder: string;
  /** The header's search field, named after the site. */
  searchSite: (siteTitle: string) => string;
  /** The search page's field. */
  searchTheDocumentation: string;
  resultsFor: (query: string) => string;
  noMatches: string;
  onThisPage: string;
  previous: string;
  next: string;
  previousAndNext: string;
  lastUpdated: string;
  /** "Was this page helpful?": the question, its three answers (GitBook's ratings), the comment's label, the thank-you note. */
  feedback: { question: string; good: string; ok: string; bad: string; comment: string; thanks: string };
  menu: string;
  /** Names of the navigation landmarks. */
  pages: string;
  links: string;
  sections: string;
  versions: string;
  breadcrumbs: string;
  switchTheme: string;
  /** The footer's link to the site's privacy policy. */
  privacyPolicy: string;
  /** A page's link to its file in the synced repository, named after the host (GitHub, GitLab, Gitea). */
  editOn: (host: string) => string;
  /** The not-found page: its heading, its sentence, and the link back to the site's first page. */
  notFound: { title: string; message: string; home: string };
  /** The page of a visitor-auth site for a visitor without a valid token (and no fallback URL). */
  signIn: { title: string; message: string };
}

const english: ReaderWords = {
  skipToContent: "Skip to content",
  search: "Search",
  searchPlaceholder: "Search…",
  searchSite: (siteTitle) => `Search ${siteTitle}`,
  searchTheDocumentation: "Search the documentation",
  resultsFor: (query) => `Results for “${query}”`,
  noMatches: "No page matches.",
  onThisPage: "On this page",
  previous: "Previous",
  next: "Next",
  previousAndNext: "Previous and next",
  lastUpdated: "Last updated",
  feedback: {
    question: "Was this page helpful?",
    good: "Yes",
    ok: "Somewhat",
    bad: "No",
    comment: "Tell us more (optional)",
    thanks: "Thank you for your feedback.",
  },
  menu: "Menu",
  pages: "Pages",
  links: "Links",
  sections: "Sections",
  versions: "Versions",
  breadcrumbs: "Breadcrumbs",
  switchTheme: "Switch between light and dark",
  privacyPolicy: "Privacy policy",
  editOn: (host) => `Edit on ${host}`,
  notFound: { title: "Page not found", message: "There is no page at this address.", home: "Go to the home page" },
  signIn: { title: "Sign in to read this site", message: "This documentation is for signed-in readers only." },
};

const WORDS: Readonly<Record<string, ReaderWords>> = {
  en: english,
  fr: {
    skipToContent: "Aller au contenu",
    search: "Rechercher",
    searchPlaceholder: "Rechercher…",
    searchSite: (siteTitle) => `Rechercher dans ${siteTitle}`,
    searchTheDocumentation: "Rechercher dans la documentation",
    resultsFor: (query) => `Résultats pour « ${query} »`,
    noMatches: "Aucune page ne correspond.",
    onThisPage: "Sur cette page",
    previous: "Précédent",
    next: "Suivant",
    previousAndNext: "Précédent et suivant",
    lastUpdated: "Dernière mise à jour le",
    feedback: {
      question: "Cette page vous a-t-elle été utile ?",
      good: "Oui",
      ok: "En partie",
      bad: "Non",
      comment: "Dites-nous en plus (facultatif)",
      thanks: "Merci pour votre avis.",
    },
    menu: "Menu",
    pages: "Pages",
    links: "Liens",
    sections: "Sections",
    versions: "Versions",
    breadcrumbs: "Fil d’Ariane",
    switchTheme: "Basculer entre clair et sombre",
    privacyPolicy: "Politique de confidentialité",
    editOn: (host) => `Modifier sur ${host}`,
    notFound: { title: "Page introuvable", message: "Il n’y a aucune page à cette adresse.", home: "Aller à la page d’accueil" },
    signIn: { title: "Connectez-vous pour lire ce site", message: "Cette documentation est réservée aux lecteurs connectés." },
  },
  de: {
    skipToContent: "Zum Inhalt springen",
    search: "Suchen",
    searchPlaceholder: "Suchen…",
    searchSite: (siteTitle) => `${siteTitle} durchsuchen`,
    searchTheDocumentation: "Dokumentation durchsuchen",
    resultsFor: (query) => `Ergebnisse für „${query}“`,
    noMatches: "Keine Seite gefunden.",
    onThisPage: "Auf dieser Seite",
    previous: "Zurück",
    next: "Weiter",
    previousAndNext: "Zurück und weiter",
    lastUpdated: "Zuletzt aktualisiert am",
    feedback: {
      question: "War diese Seite hilfreich?",
      good: "Ja",
      ok: "Teilweise",
      bad: "Nein",
      comment: "Erzählen Sie uns mehr (optional)",
      thanks: "Vielen Dank für Ihr Feedback.",
    },
    menu: "Menü",
    pages: "Seiten",
    links: "Links",
    sections: "Bereiche",
    versions: "Versionen",
    breadcrumbs: "Brotkrümelnavigation",
    switchTheme: "Zwischen hell und dunkel wechseln",
    privacyPolicy: "Datenschutzerklärung",
    editOn: (host) => `Auf ${host} bearbeiten`,
    notFound: { title: "Seite nicht gefunden", message: "Unter dieser Adresse gibt es keine Seite.", home: "Zur Startseite" },
    signIn: { title: "Melden Sie sich an, um diese Seite zu lesen", message: "Diese Dokumentation ist nur für angemeldete Leser." },
  },
  es: {
    skipToContent: "Saltar al contenido",
    search: "Buscar",
    searchPlaceholder: "Buscar…",
    searchSite: (siteTitle) => `Buscar en ${siteTitle}`,
    searchTheDocumentation: "Buscar en la documentación",
    resultsFor: (query) => `Resultados para «${query}»`,
    noMatches: "Ninguna página coincide.",
    onThisPage: "En esta página",
    previous: "Anterior",
    next: "Siguiente",
    previousAndNext: "Anterior y siguiente",
    lastUpdated: "Última actualización:",
    feedback: {
      question: "¿Te ha resultado útil esta página?",
      good: "Sí",
      ok: "En parte",
      bad: "No",
      comment: "Cuéntanos más (opcional)",
      thanks: "Gracias por tu opinión.",
    },
    menu: "Menú",
    pages: "Páginas",
    links: "Enlaces",
    sections: "Secciones",
    versions: "Versiones",
    breadcrumbs: "Ruta de navegación",
    switchTheme: "Cambiar entre claro y oscuro",
    privacyPolicy: "Política de privacidad",
    editOn: (host) => `Editar en ${host}`,
    notFound: { title: "Página no encontrada", message: "No hay ninguna página en esta dirección.", home: "Ir a la página de inicio" },
    signIn: { title: "Inicia sesión para leer este sitio", message: "Esta documentación es solo para lectores que han iniciado sesión." },
  },
  ja: {
    skipToContent: "コンテンツへスキップ",
    search: "検索",
    searchPlaceholder: "検索…",
    searchSite: (siteTitle) => `${siteTitle} を検索`,
    searchTheDocumentation: "ドキュメントを検索",
    resultsFor: (query) => `「${query}」の検索結果`,
    noMatches: "一致するページはありません。",
    onThisPage: "このページの内容",
    previous: "前へ",
    next: "次へ",
    previousAndNext: "前へ・次へ",
    lastUpdated: "最終更新:",
    feedback: {
      question: "このページは役に立ちましたか？",
      good: "はい",
      ok: "まあまあ",
      bad: "いいえ",
      comment: "詳しく教えてください（任意）",
      thanks: "フィードバックをありがとうございました。",
    },
    menu: "メニュー",
    pages: "ページ",
    links: "リンク",
    sections: "セクション",
    versions: "バージョン",
    breadcrumbs: "パンくずリスト",
    switchTheme: "ライトとダークを切り替え",
    privacyPolicy: "プライバシーポリシー",
    editOn: (host) => `${host} で編集`,
    notFound: { title: "ページが見つかりません", message: "このアドレスにはページがありません。", home: "ホームページへ移動" },
    signIn: { title: "このサイトを読むにはサインインしてください", message: "このドキュメントはサインインした読者専用です。" },
  },
  zh: {
    skipToContent: "跳到内容",
    search: "搜索",
    searchPlaceholder: "搜索…",
    searchSite: (siteTitle) => `搜索 ${siteTitle}`,
    searchTheDocumentation: "搜索文档",
    resultsFor: (query) => `“${query}”的搜索结果`,
    noMatches: "没有匹配的页面。",
    onThisPage: "本页内容",
    previous: "上一页",
    next: "下一页",
    previousAndNext: "上一页和下一页",
    lastUpdated: "最后更新：",
    feedback: { question: "此页面对您有帮助吗？", good: "是", ok: "一般", bad: "否", comment: "告诉我们更多（可选）", thanks: "感谢您的反馈。" },
    menu: "菜单",
    pages: "页面",
    links: "链接",
    sections: "栏目",
    versions: "版本",
    breadcrumbs: "面包屑导航",
    switchTheme: "切换浅色和深色",
    privacyPolicy: "隐私政策",
    editOn: (host) => `在 ${host} 上编辑`,
    notFound: { title: "找不到页面", message: "此地址没有页面。", home: "前往首页" },
    signIn: { title: "登录以阅读此站点", message: "本文档仅供已登录的读者阅读。" },
  },
};

/** The reader's words in `language` (a space's language code); English for any other. */
export function readerWords(language: string): ReaderWords {
  return WORDS[language] ?? english;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** A long date in `language` (English for a language Intl does not know), in UTC as revisions are stamped. */
export function formatDate(language: string, date: Date): string {
  let format = dateFormats.get(language);
  if (!format) {
    const locale = Intl.DateTimeFormat.supportedLocalesOf([language])[0] ?? "en";
    format = new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" });
    dateFormats.set(language, format);
  }
  return format.format(date);
}
