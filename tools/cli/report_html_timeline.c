/* The timeline of the HTML report: ranks (locations) against time, grouped
 * by host, MPI against computation with one colour per MPI function,
 * messages as lines, wait states marked in red under each row, the critical
 * path as a dark bar over the rows it runs through; hover for a slice's
 * function, call site, duration, bytes and partner (click keeps it); zoom
 * with the wheel, W/S or the buttons, pan by dragging, A/D or the arrows.
 * report_html.c calls msc_html_timeline with one line. Rows take the
 * window's height (12-48 px); beyond it the box scrolls, the canvas stays in
 * view (sticky) and only the rows in view are drawn.
 *
 * Design. The data are the engine's pre-aggregated levels (tools/analysis/
 * timeline.c: each location binned into 1024, 4096, 16384 and 65536 pixel
 * columns while the cells stay within 2^21, a state and a wait bit per
 * cell), embedded once as a JSON string in a <script type="application/json">.
 * The script draws on a canvas: for the visible range it takes the coarsest
 * level that still has a column per pixel (the deepest one otherwise) and
 * paints runs of equal cells; when the deepest level is coarser than a
 * pixel, it draws the exact calls where the view meets a window of exact
 * calls (W lines: at most 40,000 calls in all, where the run waited most;
 * marked by a grey bar over the rows) and the deepest level elsewhere; a
 * window asked for (`report --html --from --to`) opens the page and is drawn
 * exactly whenever the view lies in it. Message lines when at most 2,000 lie
 * in view. So the page's size and drawing time depend on the pixels and the
 * budget, not on the number of events. After each draw it writes what it did
 * on the canvas (data-level: columns, "exact" or "mixed"; data-view,
 * data-rects, data-exact, data-cp, data-row-height, data-ms), the exact calls
 * drawn in the hidden #tl-exact (rank thread function enter leave wait, ns)
 * and the critical path in #tl-cppath (rank from to, ns) for the tests. The
 * location `#tl=A,B` (fractions of the run) opens the view [A, B]; with
 * `solo` in the location too, the other sections are hidden (the test's
 * screenshots); `hover=F,ROW`, `click` and `keys=...` drive the page's own
 * handlers (the test's scripted hover). The hover finds the call under the
 * mouse by binary search in its location's exact calls, each of which
 * carries its site (S lines), first partner, bytes and root.
 *
 * The script is kept as C string literals here (its source of truth, no
 * build step); `node --check` on it after an edit is a quick syntax check.
 */
#include <stdio.h>
#include <string.h>

#include "report_cli.h"

static const char *TL_JS =
    "(function(){\n"
    "var d=document.getElementById('tl-data');if(!d)return;\n"
    "var hash=location.hash;\n"
    "if(/solo/.test(hash))document.querySelectorAll('header,section,nav').forEach(function(s){if(s.id!=='timeline')s.style.display='none';});\n"
    "var txt=JSON.parse(d.textContent),span=1,exact=0,cols=[],fn={},locs=[],rows={},ex={},msgs=[],wins=[],sites={},cp=[],cpn=[0,0];\n"
    "txt.split('|').forEach(function(l){var f=l.split(' ');\n"
    " if(f[0]==='H'){span=+f[1];exact=+f[2];cols=f.slice(4).map(Number);}\n"
    " else if(f[0]==='F')fn[+f[1]]=f[2];\n"
    " else if(f[0]==='L')locs.push({loc:+f[1],rank:+f[2],thread:+f[3]});\n"
    " else if(f[0]==='R'){(rows[f[1]]=rows[f[1]]||[])[+f[2]]={c:f[3],w:f[4]};}\n"
    " else if(f[0]==='W')wins.push([+f[1],+f[2],f[3]]);\n"
    " else if(f[0]==='C')cpn=[+f[1],+f[2]];\n"
    " else if(f[0]==='S')(sites[f[1]]=sites[f[1]]||{})[f[2]]=f.slice(3).join(' ');\n"
    " else if(f[0]==='P')cp.push([+f[1],+f[2],+f[3]]);\n"
    " else if(f[0]==='E'){var e=(ex[f[1]]=ex[f[1]]||[]),q=f[3].split(',').map(Number),t=+f[2];\n"
    "  for(var j=0;j+7<q.length;j+=8){t+=q[j];e.push([t,t+q[j+1],q[j+2],q[j+3],q[j+4],q[j+5],q[j+6],q[j+7]]);}}\n"
    " else if(f[0]==='M')msgs.push([+f[1],+f[2],+f[3],+f[4]]);});\n"
    "Object.keys(ex).forEach(function(k){ex[k].sort(function(x,y){return x[0]-y[0];});});\n"
    "locs=locs.filter(function(x){return rows[x.loc];});\n"
    "/* Rows grouped by host (the profile's per-rank hosts), then rank and thread. */\n"
    "var hosts=[];try{hosts=JSON.parse(document.getElementById('tl-hosts').textContent);}catch(err){hosts=[];}\n"
    "function hostOf(r){return hosts[r]||'';}\n"
    "var hostIdx={},hostList=[];locs.forEach(function(x){var h=hostOf(x.rank);if(hostIdx[h]===undefined){hostIdx[h]=hostList.length;hostList.push(h);}});\n"
    "locs.sort(function(x,y){return hostIdx[hostOf(x.rank)]-hostIdx[hostOf(y.rank)]||x.rank-y.rank||x.thread-y.thread;});\n"
    "var grouped=hostList.length>1,GH=16,lines=[],rowOf={},rowY=[];\n"
    "locs.forEach(function(x,i){rowOf[x.loc]=i;});\n"
    "function escq(s){return String(s).replace(/[<&>]/g,function(c){return c==='<'?'&lt;':c==='>'?'&gt;':'&amp;';});}\n"
    "function dec(s){var b=atob(s),u=new Uint8Array(b.length);for(var i=0;i<b.length;i++)u[i]=b.charCodeAt(i);return u;}\n"
    "function cellsOf(loc,v){var r=rows[loc][v];if(!r.cu){r.cu=dec(r.c);r.wu=dec(r.w);}return r;}\n"
    "var PAL=['#4e79a7','#f28e2b','#b07aa1','#76b7b2','#edc948','#9c755f','#ff9da7','#bab0ac','#17becf','#8c564b','#1f77b4','#aec7e8'];\n"
    "var CP='#111111',WAIT='#d62728';\n"
    "function color(s){return s===1?'#a6d49f':s===255?'#777':PAL[(s-2)%PAL.length];}\n"
    "function fname(s){return s===1?'computation':s===255?'other MPI':s===0?'not started or ended':(fn[s]||'?');}\n"
    "var cv=document.getElementById('tl-canvas'),ctx=cv.getContext('2d'),box=document.getElementById('tl-box');\n"
    "var spacer=document.getElementById('tl-spacer'),tip=document.getElementById('tl-tip'),det=document.getElementById('tl-detail');\n"
    "var showWait=document.getElementById('tl-wait'),showCp=document.getElementById('tl-cp'),showMsg=document.getElementById('tl-msgs');\n"
    "var top=18,left=78,W=box.clientWidth||1000;\n"
    "/* Rows take the height the window gives (12 to 48 px each); beyond it the\n"
    " * box scrolls and only the rows in view are drawn. */\n"
    "var avail=Math.max(220,(window.innerHeight||700)-150);\n"
    "var rowH=Math.max(12,Math.min(48,Math.floor((avail-top-(grouped?hostList.length*GH:0))/Math.max(1,locs.length))));\n"
    "(function(){var y=top,prev=null;locs.forEach(function(x){var h=hostOf(x.rank);\n"
    " if(grouped&&h!==prev){lines.push({host:h,y:y});y+=GH;prev=h;}rowY.push(y);y+=rowH;});})();\n"
    "cv.setAttribute('data-groups',hostList.map(function(h){var rs=[];locs.forEach(function(x){if(hostOf(x.rank)===h&&rs.indexOf(x.rank)<0)rs.push(x.rank);});return h+':'+rs.join(',');}).join(';'));\n"
    "var fullH=rowY.length?rowY[rowY.length-1]+rowH+4:top+4,viewH=Math.min(fullH,Math.max(avail,240));\n"
    "box.style.height=viewH+'px';W=box.clientWidth||W;cv.width=W;cv.height=viewH;cv.style.height=viewH+'px';spacer.style.height=(fullH-viewH)+'px';\n"
    "var a=0,b=span,m=/#tl=([0-9.]+),([0-9.]+)/.exec(hash);\n"
    "if(m){a=span*parseFloat(m[1]);b=span*parseFloat(m[2]);if(!(b>a)){a=0;b=span;}}\n"
    "else if(wins.length===1&&wins[0][2]==='asked'){a=wins[0][0];b=wins[0][1];}\n"
    "function fmt(ns){return ns>=1e9?(ns/1e9).toFixed(3)+' s':ns>=1e6?(ns/1e6).toFixed(3)+' ms':(ns/1e3).toFixed(1)+' us';}\n"
    "function fmtB(n){return n>=1073741824?(n/1073741824).toFixed(2)+' GiB':n>=1048576?(n/1048576).toFixed(2)+' MiB':n>=1024?(n/1024).toFixed(1)+' KiB':n+' B';}\n"
    "var state={inside:false,vw:[],lv:0};\n"
    "function draw(){var t0=performance.now(),pw=W-left,rects=0,shown=[],yoff=box.scrollTop;\n"
    " ctx.clearRect(0,0,cv.width,cv.height);ctx.font='11px sans-serif';\n"
    " var lv=cols.length-1;for(var v=0;v<cols.length;v++)if(cols[v]*(b-a)/span>=pw){lv=v;break;}\n"
    " var deep=cols[cols.length-1]*(b-a)/span<pw,vw=wins.filter(function(w){return w[1]>a&&w[0]<b;});\n"
    " var inside=vw.length===1&&vw[0][0]<=a&&vw[0][1]>=b;\n"
    " if(!deep&&!(inside&&vw[0][2]==='asked')){vw=[];inside=false;}\n"
    " state={inside:inside,vw:vw,lv:lv};\n"
    " function px(t){return left+(t-a)/(b-a)*pw;}\n"
    " ctx.save();ctx.translate(0,-yoff);\n"
    " lines.forEach(function(g){if(g.y+GH<yoff||g.y>yoff+viewH)return;ctx.fillStyle='#eef';ctx.fillRect(0,g.y,W,GH-2);\n"
    "  ctx.fillStyle='#224';ctx.fillText('host '+g.host,4,g.y+GH-5);});\n"
    " locs.forEach(function(L,i){var y=rowY[i];if(y+rowH<yoff+top||y>yoff+viewH)return;ctx.fillStyle='#333';\n"
    "  ctx.fillText('rank '+L.rank+(L.thread?'.'+L.thread:''),2,y+Math.min(rowH-3,rowH/2+4));\n"
    "  if(!inside){var r=cellsOf(L.loc,lv),n=cols[lv],run=-1,rs=0,wr=-1,st=[];\n"
    "  for(var x=0;x<=pw;x++){var c=-1,w=0;if(x<pw){var ci=Math.floor((a+(b-a)*(x+0.5)/pw)/span*n);\n"
    "    if(ci>=0&&ci<n){c=r.cu[ci];w=(r.wu[ci>>3]>>(ci&7))&1;}}\n"
    "   if(c!==run){if(run>0){ctx.fillStyle=color(run);ctx.fillRect(left+rs,y,x-rs,rowH-2);rects++;}run=c;rs=x;}\n"
    "   if(w&&wr<0)wr=x;if(!w&&wr>=0){st.push(wr,x);wr=-1;}}\n"
    "  if(showWait.checked){ctx.fillStyle=WAIT;for(var j=0;j<st.length;j+=2){ctx.fillRect(left+st[j],y+rowH-5,st[j+1]-st[j],3);rects++;}}}\n"
    "  var e=ex[L.loc]||[];vw.forEach(function(W0){var wa=Math.max(a,W0[0]),wb=Math.min(b,W0[1]),xa=px(wa),xb=px(wb);\n"
    "   ctx.clearRect(xa,y,xb-xa,rowH);ctx.save();ctx.beginPath();ctx.rect(xa,y,xb-xa,rowH);ctx.clip();\n"
    "   if(e.length&&e[0][0]<=wb&&e[e.length-1][0]>=wa){ctx.fillStyle=color(1);ctx.fillRect(Math.max(xa,px(e[0][0])),y,Math.min(xb,px(e[e.length-1][0]))-Math.max(xa,px(e[0][0])),rowH-2);rects++;}\n"
    "   for(var j=0;j<e.length;j++){var q=e[j];if(q[1]<wa||q[0]>wb)continue;\n"
    "    var x0=px(q[0]),x1=px(q[1]);\n"
    "    ctx.fillStyle=color(q[2]);ctx.fillRect(x0,y,Math.max(1,x1-x0),rowH-2);rects++;\n"
    "    shown.push([L.rank,L.thread,fn[q[2]]||(q[2]===255?'other':'?'),q[0],q[1],q[3]]);\n"
    "    if(q[3]>0&&showWait.checked){var xw=px(q[0]+q[3]);ctx.fillStyle=WAIT;ctx.fillRect(x0,y+rowH-5,Math.max(1,xw-x0),3);rects++;}}\n"
    "   ctx.restore();});});\n"
    " ctx.fillStyle='#555';wins.forEach(function(W0){if(W0[1]<a||W0[0]>b)return;var xa=Math.max(left,px(W0[0])),xb=Math.min(W,px(W0[1]));ctx.fillRect(xa,yoff+top-4,Math.max(1,xb-xa),2);});\n"
    " /* The critical path: a dark bar along the top of each stretch, a line at each jump. */\n"
    " var ncp=0;if(showCp.checked&&cp.length){ctx.fillStyle=CP;ctx.strokeStyle=CP;ctx.lineWidth=1;ctx.beginPath();\n"
    "  var ord=cp.slice().sort(function(x,y){return x[1]-y[1];}),prev=null;\n"
    "  ord.forEach(function(s){var i=rowOf[s[0]];if(i===undefined)return;\n"
    "   if(s[2]>=a&&s[1]<=b){var x0=Math.max(left,px(s[1])),x1=Math.min(W,px(s[2]));ctx.fillRect(x0,rowY[i],Math.max(1,x1-x0),3);ncp++;}\n"
    "   if(prev&&prev[0]!==s[0]&&s[1]>=a&&s[1]<=b){var pi=rowOf[prev[0]];if(pi!==undefined){var xj=px(s[1]);ctx.moveTo(xj,rowY[pi]+1);ctx.lineTo(xj,rowY[i]+1);}}\n"
    "   prev=s;});ctx.stroke();}\n"
    " var seen={};shown=shown.filter(function(q){var k=q[0]+'.'+q[1]+'@'+q[3];if(seen[k])return false;seen[k]=1;return true;});\n"
    " var xp=document.getElementById('tl-exact');if(xp)xp.textContent=shown.length<=20000?shown.map(function(q){return q.join(' ');}).join('\\n'):'';\n"
    " cv.setAttribute('data-exact',shown.length);\n"
    " var vis=msgs.filter(function(q){return q[3]>=a&&q[1]<=b;}),drawn=0;\n"
    " if(vis.length<=2000&&showMsg.checked){ctx.strokeStyle='rgba(0,0,0,.55)';ctx.lineWidth=1;ctx.beginPath();\n"
    "  vis.forEach(function(q){if(rowOf[q[0]]===undefined||rowOf[q[2]]===undefined)return;drawn++;\n"
    "   ctx.moveTo(px(q[1]),rowY[rowOf[q[0]]]+rowH/2);\n"
    "   ctx.lineTo(px(q[3]),rowY[rowOf[q[2]]]+rowH/2);});ctx.stroke();}\n"
    " ctx.restore();\n"
    " ctx.fillStyle='#fff';ctx.fillRect(0,0,W,top-5);ctx.fillStyle='#333';\n"
    " for(var k=0;k<=4;k++){var x=left+pw*k/4;ctx.fillText(fmt(a+(b-a)*k/4),Math.min(x,W-60),11);}\n"
    " cv.setAttribute('data-level',inside?'exact':vw.length?'mixed':String(cols[lv]));\n"
    " cv.setAttribute('data-view',a+','+b);cv.setAttribute('data-rects',rects);\n"
    " cv.setAttribute('data-lines',vis.length<=2000?drawn:0);cv.setAttribute('data-row-height',rowH);\n"
    " cv.setAttribute('data-cp',ncp);cv.setAttribute('data-rows-px',fullH+','+viewH+','+box.scrollTop);cv.setAttribute('data-ms',(performance.now()-t0).toFixed(1));\n"
    " var cpp=document.getElementById('tl-cppath');if(cpp)cpp.textContent=cp.map(function(s){var L=locs[rowOf[s[0]]];return (L?L.rank:-1)+' '+s[1]+' '+s[2];}).join('\\n');\n"
    " document.getElementById('tl-view').textContent=fmt(a)+' to '+fmt(b)+(inside?' (exact calls)':vw.length?' (exact calls in the marked windows, '+cols[lv]+' columns elsewhere)':' ('+cols[lv]+' columns over the run)');}\n"
    "/* What lies under a point of the canvas: the exact call, or the cell's state. */\n"
    "function at(cx,cy){var pw=W-left,y=cy+box.scrollTop,i=-1;\n"
    " for(var k=0;k<locs.length;k++)if(y>=rowY[k]&&y<rowY[k]+rowH){i=k;break;}\n"
    " if(i<0||cx<left)return null;var L=locs[i],t=a+(b-a)*(cx-left)/pw,onCp=false;\n"
    " cp.forEach(function(s){if(s[0]===L.loc&&t>=s[1]&&t<=s[2])onCp=true;});\n"
    " var who='rank '+L.rank+(L.thread?' thread '+L.thread:'')+(grouped?' on '+hostOf(L.rank):'');\n"
    " var e=ex[L.loc]||[],tol=(b-a)/pw*2,inW=state.vw.some(function(w){return t>=w[0]&&t<=w[1];});\n"
    " if(inW||state.inside){var lo=0,hi=e.length;while(lo<hi){var mid=(lo+hi)>>1;if(e[mid][1]<t-tol)lo=mid+1;else hi=mid;}\n"
    "  for(var j=lo;j<e.length&&e[j][0]<=t+tol;j++){var q=e[j];\n"
    "   var s=(sites[L.loc]||{})[q[4]]||fn[q[2]]||'?',parts=[who,'<b>'+escq(fn[q[2]]||'MPI')+'</b>',escq(s),'duration '+fmt(q[1]-q[0])+' (from '+fmt(q[0])+')'];\n"
    "   if(q[6]>0||q[5]>=0)parts.push(fmtB(q[6])+(q[5]>=0?(/Sendrecv/.test(fn[q[2]]||'')?' with rank ':/recv|Recv|robe/.test(fn[q[2]]||'')?' from rank ':/send|Send/.test(fn[q[2]]||'')?' to rank ':' with rank ')+q[5]:''));\n"
    "   if(q[7]>=0)parts.push('root rank '+q[7]);\n"
    "   if(q[3]>0)parts.push('waiting '+fmt(q[3]));\n"
    "   if(onCp)parts.push('on the critical path');\n"
    "   return {html:parts.join('<br>'),kind:'call'};}\n"
    "  return {html:[who,'computation at '+fmt(t)].concat(onCp?['on the critical path']:[]).join('<br>'),kind:'computation'};}\n"
    " var r=cellsOf(L.loc,state.lv),n=cols[state.lv],ci=Math.floor(t/span*n),st=ci>=0&&ci<n?r.cu[ci]:0,w=ci>=0&&ci<n?(r.wu[ci>>3]>>(ci&7))&1:0;\n"
    " var parts=[who,'<b>'+escq(fname(st))+'</b> (most of '+fmt(span*ci/n)+' to '+fmt(span*(ci+1)/n)+')'];\n"
    " if(w)parts.push('waiting in this stretch');if(onCp)parts.push('on the critical path');parts.push('zoom in for the exact calls');\n"
    " return {html:parts.join('<br>'),kind:'cell'};}\n"
    "function hover(cx,cy,pin){var h=at(cx,cy);if(!h){tip.hidden=true;return;}\n"
    " tip.innerHTML=h.html;tip.hidden=false;tip.setAttribute('data-kind',h.kind);\n"
    " tip.style.left=Math.min(W-260,cx+12)+'px';tip.style.top=(cy+12)+'px';\n"
    " if(pin){det.innerHTML=h.html.replace(/<br>/g,' &middot; ');det.setAttribute('data-kind',h.kind);}}\n"
    "function setView(na,nb){var w=nb-na;if(w<1)w=1;if(w>span)w=span;if(na<0)na=0;if(na+w>span)na=span-w;a=na;b=na+w;draw();}\n"
    "function zoom(f,cx){var m=a+(b-a)*(cx===undefined?0.5:cx);setView(m-(m-a)*f,m+(b-m)*f);}\n"
    "function pan(f){setView(a+(b-a)*f,b+(b-a)*f);}\n"
    "var overflow=fullH>viewH;\n"
    "cv.addEventListener('wheel',function(e){var r=cv.getBoundingClientRect();\n"
    " if(e.shiftKey){e.preventDefault();pan((e.deltaY||e.deltaX)>0?0.2:-0.2);return;}\n"
    " if(overflow&&!e.ctrlKey)return; /* the box scrolls the rows */\n"
    " e.preventDefault();zoom(e.deltaY>0?1.25:0.8,Math.max(0,(e.clientX-r.left-left)/(r.width-left)));},{passive:false});\n"
    "box.addEventListener('scroll',draw);\n"
    "var drag=null;cv.addEventListener('mousedown',function(e){drag={x:e.clientX,a:a,b:b,moved:false};});\n"
    "window.addEventListener('mouseup',function(e){if(drag&&!drag.moved){var r=cv.getBoundingClientRect();hover(e.clientX-r.left,e.clientY-r.top,true);}drag=null;});\n"
    "window.addEventListener('mousemove',function(e){if(drag){var dx=(e.clientX-drag.x)/(W-left)*(drag.b-drag.a);if(Math.abs(e.clientX-drag.x)>2)drag.moved=true;if(drag.moved)setView(drag.a-dx,drag.b-dx);}});\n"
    "cv.addEventListener('mousemove',function(e){if(drag&&drag.moved)return;var r=cv.getBoundingClientRect();hover(e.clientX-r.left,e.clientY-r.top,false);});\n"
    "cv.addEventListener('mouseleave',function(){tip.hidden=true;});\n"
    "/* Keys as in Perfetto (W/S zoom, A/D pan) and the arrows, +/-, 0: the whole run. */\n"
    "window.addEventListener('keydown',function(e){var tg=e.target&&e.target.tagName;if(tg==='INPUT'||tg==='TEXTAREA'||e.ctrlKey||e.metaKey||e.altKey)return;\n"
    " var k=e.key;if(k==='w'||k==='W'||k==='+'||k==='=')zoom(0.5);else if(k==='s'||k==='S'||k==='-')zoom(2);\n"
    " else if(k==='a'||k==='A'||k==='ArrowLeft')pan(-0.25);else if(k==='d'||k==='D'||k==='ArrowRight')pan(0.25);\n"
    " else if(k==='0'||k==='Home')setView(0,span);else if(k==='Escape'){tip.hidden=true;det.textContent='';}else return;\n"
    " e.preventDefault();});\n"
    "document.getElementById('tl-in').onclick=function(){zoom(0.5);};\n"
    "document.getElementById('tl-out').onclick=function(){zoom(2);};\n"
    "document.getElementById('tl-all').onclick=function(){setView(0,span);};\n"
    "[showWait,showCp,showMsg].forEach(function(c){c.onchange=draw;});\n"
    "var lg=document.getElementById('tl-legend'),h='<span><i style=\"background:'+color(1)+'\"></i>computation</span>';\n"
    "Object.keys(fn).forEach(function(k){h+='<span><i style=\"background:'+color(+k)+'\"></i>'+fn[k].replace(/[<&]/g,'')+'</span>';});\n"
    "lg.innerHTML=h+'<span><i style=\"background:'+WAIT+'\"></i>wait state</span><span><i style=\"background:'+CP+';height:3px\"></i>critical path'+(cpn[0]>cpn[1]?' (the last '+cpn[1]+' of '+cpn[0]+' stretches)':'')+'</span><span>&mdash; message</span>';\n"
    "window.mscTimeline={setView:setView,zoom:zoom,pan:pan,view:function(){return [a,b];},windows:function(){return wins;},at:at};\n"
    "draw();\n"
    "/* Test hooks in the location: hover=FX,ROW (a fraction of the view, a row)\n"
    " * moves the mouse there through the canvas's own handler, +click pins it;\n"
    " * keys=... presses those keys. */\n"
    "var hv=/hover=([0-9.]+),([0-9]+)/.exec(hash);\n"
    "if(hv&&locs.length){var ri=Math.min(locs.length-1,+hv[2]);\n"
    " if(rowY[ri]<box.scrollTop+top||rowY[ri]+rowH>box.scrollTop+viewH){box.scrollTop=Math.max(0,rowY[ri]-viewH/2);draw();}\n"
    " var r0=cv.getBoundingClientRect(),hx=left+(W-left)*parseFloat(hv[1]),hy=rowY[ri]-box.scrollTop+rowH/2;\n"
    " cv.dispatchEvent(new MouseEvent('mousemove',{clientX:r0.left+hx,clientY:r0.top+hy,bubbles:true}));\n"
    " if(/click/.test(hash)){cv.dispatchEvent(new MouseEvent('mousedown',{clientX:r0.left+hx,clientY:r0.top+hy,bubbles:true}));\n"
    "  window.dispatchEvent(new MouseEvent('mouseup',{clientX:r0.left+hx,clientY:r0.top+hy,bubbles:true}));}}\n"
    "var ks=/keys=([a-zA-Z0-9+-]+)/.exec(hash);\n"
    "if(ks)ks[1].split('').forEach(function(k){window.dispatchEvent(new KeyboardEvent('keydown',{key:k,bubbles:true}));});\n"
    "document.body.setAttribute('data-timeline','drawn');\n"
    "})();\n";

/* s as a JSON string that cannot end the <script> element it sits in. */
static void json_in_script(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(o, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", o);
        else if (ch == '\t') fputs("\\t", o);
        else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&') fprintf(o, "\\u%04x", ch);
        else fputc(ch, o);
    }
    fputc('"', o);
}

void msc_html_timeline(FILE *o, const msc_json_t *ws, const msc_json_t *p)
{
    const char *tl = ws ? msc_json_str(ws, "timeline", NULL) : NULL;
    if (!tl) return;
    fprintf(o, "<section id=\"timeline\"><h2>Timeline</h2><p>Each row a rank (and thread), "
               "grouped by host: computation green, each MPI function its colour, wait states red "
               "underneath, the critical path a dark bar along the top, messages as lines (when "
               "few enough are in view). Hover a slice for its function, call site, duration, "
               "bytes and partner; click to keep it below. Zoom: wheel (ctrl+wheel when the rows "
               "scroll), W/S, +/- or the buttons; pan: drag, shift+wheel, A/D or the arrow keys; "
               "0 the whole run. <span id=\"tl-view\"></span></p>\n"
               "<style>#tl-wrap{position:relative}#tl-box{overflow-y:auto;border:1px solid #eee}"
               "#tl-canvas{width:100%%;display:block;cursor:grab;position:sticky;top:0}"
               "#tl-tip{position:absolute;z-index:5;background:#fffff0;border:1px solid #aaa;"
               "padding:4px 6px;font-size:12px;max-width:420px;pointer-events:none;"
               "box-shadow:1px 1px 4px rgba(0,0,0,.2)}#tl-detail{font-size:12px;min-height:1.2em}"
               "#tl-legend span{margin-right:12px;font-size:12px;white-space:nowrap}"
               "#tl-legend i{display:inline-block;width:10px;height:10px;margin-right:4px}"
               "#timeline button{margin-right:6px}#timeline label{margin-left:10px;font-size:12px}"
               "</style>\n"
               "<p><button id=\"tl-in\">zoom in</button><button id=\"tl-out\">zoom out</button>"
               "<button id=\"tl-all\">whole run</button>"
               "<label><input type=\"checkbox\" id=\"tl-wait\" checked> wait states</label>"
               "<label><input type=\"checkbox\" id=\"tl-cp\" checked> critical path</label>"
               "<label><input type=\"checkbox\" id=\"tl-msgs\" checked> messages</label></p>\n"
               "<div id=\"tl-wrap\"><div id=\"tl-box\"><canvas id=\"tl-canvas\" height=\"200\">"
               "</canvas><div id=\"tl-spacer\"></div></div><div id=\"tl-tip\" hidden></div></div>\n"
               "<p id=\"tl-detail\"></p><p id=\"tl-legend\"></p>\n"
               "<pre id=\"tl-exact\" hidden></pre><pre id=\"tl-cppath\" hidden></pre>\n"
               "<script type=\"application/json\" id=\"tl-hosts\">[");
    /* The host of each rank (the profile's per_rank), for the rows' groups. */
    const msc_json_t *pr = p ? msc_json_get(p, "per_rank") : NULL;
    int64_t next = 0;
    for (const msc_json_t *r = pr ? pr->child : NULL; r; r = r->next) {
        int64_t rank = msc_json_int(r, "rank");
        if (rank < next || rank > next + 1000000) continue;
        for (; next < rank; next++) fputs(next ? ",\"\"" : "\"\"", o);
        if (next) fputc(',', o);
        json_in_script(o, msc_json_str(r, "host", ""));
        next++;
    }
    fprintf(o, "]</script>\n<script type=\"application/json\" id=\"tl-data\">");
    json_in_script(o, tl);
    fprintf(o, "</script>\n<script>%s</script></section>\n", TL_JS);
}
